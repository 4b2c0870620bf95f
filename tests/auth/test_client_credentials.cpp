// lib/auth's client credentials against a test authorization server's token endpoint over HTTPS: how long a token is
// held, whatever "expires_in" the server answers, a token endpoint the secret is not sent to, and a renewal that hangs.
#include <ClientCredentials.hpp>
#include <HttpsTrust.hpp>
#include <TempDomain.hpp>
#include <TestAuthorizationServer.hpp>
#include <TestCa.hpp>
#include <common/Log.hpp>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
using mxl::auth::AuthorizationServer;
using mxl::auth::ClientCredentials;
using mxl::test::TestAuthorizationServer;

namespace
{
    // A facility authority that this process trusts, and a certificate of it for 127.0.0.1.
    struct Facility
    {
        mxl::test::TempDomain directory{"auth-pki"};
        mxl::test::TestCa authority{directory.path(), "facility"};
        mxl::test::IssuedCertificate served = authority.issue("auth", {"127.0.0.1"});

        Facility()
        {
            mxl::setHttpsTrust(authority.caFile());
        }

        ~Facility()
        {
            mxl::setHttpsTrust({});
        }

        [[nodiscard]] mxl::TlsFiles tls() const
        {
            return {served.certificate, served.key};
        }
    };

    std::mutex logged;
    std::vector<std::string> lines;

    void keep(mxl::log::Level, std::string_view line) noexcept
    {
        std::lock_guard const lock{logged};
        lines.emplace_back(line);
    }
}

TEST_CASE("a token whose expires_in is huge, absent or not positive is used, and asked for once")
{
    Facility const facility;
    nlohmann::json const huge = 9223372036854775807LL;
    for (auto const& expiresIn :
         {huge, nlohmann::json(18446744073709551615ULL), nlohmann::json{}, nlohmann::json(0), nlohmann::json(-5), nlohmann::json("3600")})
    {
        INFO("expires_in ", expiresIn.dump());
        TestAuthorizationServer server{facility.tls()};
        server.addClient("tx1", "s3cret", {"rx1.studio-a.test"}, {{"x-nmos-connection", {{"read", {"*"}}}}});
        server.answerExpiresIn(expiresIn);
        ClientCredentials tokens{std::make_shared<AuthorizationServer>(server.issuer(), 5s), "tx1", "s3cret", "connection", 5s};
        auto const token = tokens.bearer();
        REQUIRE(server.issuedTokens().size() == 1);
        CHECK(token == server.issuedTokens().front());
        CHECK(tokens.bearer() == token);
        CHECK(server.issuedTokens().size() == 1);
    }
}

TEST_CASE("the client's secret is not sent to a token endpoint over plain http, and the log says so once")
{
    Facility const facility;
    TestAuthorizationServer server{facility.tls()};
    TestAuthorizationServer plain;
    plain.addClient("tx1", "s3cret", {"rx1.studio-a.test"}, {{"x-nmos-connection", {{"read", {"*"}}}}});
    server.announceTokenEndpoint(plain.issuer() + "/token");
    ClientCredentials tokens{std::make_shared<AuthorizationServer>(server.issuer(), 5s), "tx1", "s3cret", "connection", 5s};

    mxl::log::redirect(&keep);
    auto const first = tokens.bearer();
    auto const second = tokens.bearer();
    mxl::log::redirect(nullptr);
    CHECK(first.empty());
    CHECK(second.empty());
    CHECK(plain.issuedTokens().empty());
    std::lock_guard const lock{logged};
    auto const said =
        std::count_if(lines.begin(), lines.end(),
                      [&](std::string const& line)
                      {
                          return line.find(fmt::format("auth: no access token for client 'tx1': the token endpoint '{}/token' "
                                                       "is not https://; the client's secret is not sent to it",
                                                       plain.issuer())) != std::string::npos;
                      });
    CHECK(said == 1);
}

TEST_CASE("while one caller asks for a token, callers without one wait for its answer, and a caller whose token holds goes on with it")
{
    Facility const facility;
    TestAuthorizationServer server{facility.tls()};
    // Renewed after 3 s; a caller finds it valid until 6 s.
    server.addClient("tx1", "s3cret", {"rx1.studio-a.test"}, {{"x-nmos-connection", {{"read", {"*"}}}}}, 6s);
    ClientCredentials tokens{std::make_shared<AuthorizationServer>(server.issuer(), 5s), "tx1", "s3cret", "connection", 5s};

    // No token yet: two callers, one request, and both get its token once the server answers.
    server.holdTokenAnswers();
    auto first = std::async(std::launch::async, [&] { return tokens.bearer(); });
    REQUIRE(server.waitForTokenRequest(0, 10s));
    auto second = std::async(std::launch::async, [&] { return tokens.bearer(); });
    CHECK(second.wait_for(300ms) == std::future_status::timeout);
    server.releaseTokenAnswers();
    auto const token = first.get();
    CHECK_FALSE(token.empty());
    CHECK(second.get() == token);
    REQUIRE(server.issuedTokens() == std::vector<std::string>{token});

    // Past half its lifetime the token is renewed, and the server hangs: a caller meanwhile goes on with the token held,
    // and takes the new one once it came.
    std::this_thread::sleep_for(3200ms);
    server.holdTokenAnswers();
    auto renewal = std::async(std::launch::async, [&] { return tokens.bearer(); });
    REQUIRE(server.waitForTokenRequest(1, 10s));
    CHECK(tokens.bearer() == token);
    CHECK(renewal.wait_for(0s) == std::future_status::timeout);
    server.releaseTokenAnswers();
    auto const renewed = renewal.get();
    REQUIRE(server.issuedTokens().size() == 2);
    CHECK(renewed == server.issuedTokens().back());
    CHECK(renewed != token);
    CHECK(tokens.bearer() == renewed);
}
