// lib/auth's client credentials against a test authorization server's token endpoint over HTTPS: how long a token is
// held, whatever "expires_in" the server answers, and a token endpoint the secret is not sent to.
#include <ClientCredentials.hpp>
#include <HttpsTrust.hpp>
#include <TempDomain.hpp>
#include <TestAuthorizationServer.hpp>
#include <TestCa.hpp>
#include <common/Log.hpp>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <mutex>
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
