// lib/auth's key fetching against an authorization server that never answers: requests are judged at once with the
// keys held, while the fetch still waits on the server.
#include <RequestAuthorizer.hpp>
#include <SilentServer.hpp>
#include <common/Base64.hpp>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <future>

using namespace std::chrono_literals;
using mxl::HttpRequest;
using mxl::auth::AuthorizationServer;
using mxl::auth::RequestAuthorizer;
using mxl::test::SilentServer;

TEST_CASE("a request is answered at once while the authorization server has not answered the key fetch")
{
    // Declared before the silent server, gone after it: its connections end before the fetch is waited for.
    std::shared_ptr<AuthorizationServer> authorities;
    SilentServer silent;
    authorities = std::make_shared<AuthorizationServer>(silent.url(), 30s);
    RequestAuthorizer const authorizer{authorities, "rx1.studio-a.test", {}};
    auto const header = mxl::encodeBase64Url(R"({"alg":"RS512","kid":"k1"})");
    auto const claims = mxl::encodeBase64Url(R"({"sub":"intruder"})");
    auto const forged = HttpRequest{"GET", "/x-nmos/node/v1.3/self", {}, fmt::format("Bearer {}.{}.c2ln", header, claims)};

    auto answer = std::async(std::launch::async, [&] { return authorizer.refusal(forged); });
    REQUIRE(silent.waitForConnection(20s));
    auto const asked = std::chrono::steady_clock::now();
    // The fetch holds its connection until its 30 s deadline; the request is answered long before that.
    REQUIRE(answer.wait_for(60s) == std::future_status::ready);
    CHECK(std::chrono::steady_clock::now() - asked < 15s);
    CHECK(silent.closedConnections() == 0);
    auto const refusal = answer.get();
    REQUIRE(refusal);
    CHECK(refusal->status == 401);
    CHECK(refusal->body.find("the authorization server's keys are not fetched yet") != std::string::npos);
}
