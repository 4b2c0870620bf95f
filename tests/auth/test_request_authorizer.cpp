// lib/auth's gate against tokens of a test authorization server: what IS-10 says a resource server accepts, and each
// refusal with its status and WWW-Authenticate challenge.
#include <RequestAuthorizer.hpp>
#include <TestAuthorizationServer.hpp>
#include <common/Base64.hpp>

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <thread>

using namespace std::chrono_literals;
using mxl::HttpRequest;
using mxl::auth::Access;
using mxl::auth::ApiRequest;
using mxl::auth::AuthorizationServer;
using mxl::auth::RequestAuthorizer;
using mxl::test::TestAuthorizationServer;

namespace
{
    constexpr char const* receiverId = "7b4a2c1e-6a8f-5d3b-9c2e-1f0a4b6c8d9e";
    constexpr char const* audience = "rx1.studio-a.test";

    RequestAuthorizer authorizerOf(TestAuthorizationServer const& server)
    {
        auto keys = std::make_shared<AuthorizationServer>(server.issuer(), 5s);
        REQUIRE(std::holds_alternative<std::shared_ptr<mxl::auth::JsonWebKeys const>>(keys->awaitKeys(20s)));
        return RequestAuthorizer{
            std::move(keys),
            audience,
            {{"/ticket", ApiRequest{"connection", fmt::format("single/receivers/{}/staged", receiverId), Access::Write}}}};
    }

    struct Outcome
    {
        unsigned status = 200;
        std::string challenge;
        std::string error;
    };

    Outcome ask(RequestAuthorizer const& authorizer, std::string method, std::string path, std::string const& token)
    {
        auto const refusal =
            authorizer.refusal(HttpRequest{std::move(method), std::move(path), {}, token.empty() ? "" : "Bearer " + token});
        if (!refusal)
        {
            return {};
        }
        Outcome outcome{refusal->status, {}, nlohmann::json::parse(refusal->body).value("error", "")};
        for (auto const& [name, value] : refusal->headers)
        {
            if (name == "WWW-Authenticate")
            {
                outcome.challenge = value;
            }
        }
        return outcome;
    }

    nlohmann::json const controller{{"x-nmos-node", {{"read", {"*"}}}},
                                    {"x-nmos-connection", {{"read", {"*"}}, {"write", {"single/receivers/*"}}}}};
    nlohmann::json const monitor{{"x-nmos-node", {{"read", {"*"}}}}, {"x-nmos-connection", {{"read", {"*"}}}}};
}

TEST_CASE("a token the authorization server signed for this node with the right permission is accepted, on every protected path")
{
    TestAuthorizationServer server;
    auto const authorizer = authorizerOf(server);
    auto const token = server.token(server.claims(audience, controller));
    CHECK(ask(authorizer, "GET", "/x-nmos/node/v1.3/self", token).status == 200);
    CHECK(ask(authorizer, "GET", "/x-nmos/connection/v1.1/single/receivers/", token).status == 200);
    CHECK(ask(authorizer, "PATCH", fmt::format("/x-nmos/connection/v1.2/single/receivers/{}/staged", receiverId), token).status == 200);
    CHECK(ask(authorizer, "GET", "/ticket", token).status == 200);
    // Wildcards and schemes in "aud", as IS-10 allows them.
    auto claims = server.claims("https://*.studio-a.test", controller);
    CHECK(ask(authorizer, "GET", "/x-nmos/node/v1.3/self", server.token(claims)).status == 200);
    // The keys were fetched once for all of it.
    CHECK(server.jwksFetches() == 1);
}

TEST_CASE("without a valid token every protected path is refused 401 with a Bearer challenge saying why")
{
    TestAuthorizationServer server;
    TestAuthorizationServer other;
    auto const authorizer = authorizerOf(server);
    auto const path = std::string{"/x-nmos/node/v1.3/self"};

    auto const none = ask(authorizer, "GET", path, "");
    CHECK(none.status == 401);
    CHECK(none.challenge == fmt::format("Bearer realm=\"{}\"", audience));
    CHECK(ask(authorizer, "GET", "/ticket", "").status == 401);
    CHECK(ask(authorizer, "PATCH", fmt::format("/x-nmos/connection/v1.2/single/receivers/{}/staged", receiverId), "").status == 401);

    struct Case
    {
        char const* name;
        std::string token;
        char const* reason;
    };
    auto const alg = [&](char const* name)
    {
        return mxl::encodeBase64Url(fmt::format(R"({{"alg":"{}","typ":"JWT"}})", name)) + "." +
               mxl::encodeBase64Url(server.claims(audience, controller).dump()) + ".";
    };
    std::vector<Case> const cases{
        {"expired", server.token(server.claims(audience, controller, -60s)), "the token expired at "},
        {"forged", server.forgedToken(server.claims(audience, controller)),
         "the token's signature is not verified by the authorization server's keys (key id 'key-1')"},
        {"of another audience", server.token(server.claims("rx2.studio-a.test", controller)), "does not include 'rx1.studio-a.test'"},
        {"of another issuer", other.token(server.claims(audience, controller)), "signature is not verified"},
        {"unsigned", alg("none"), "the token is signed with \"none\", not RS512 as IS-10 requires"},
        {"HMAC-signed", alg("HS256") + "c2ln", "not RS512"},
        {"not a JWS", "not-a-token", "the token is not a compact JWS"},
    };
    for (auto const& bad : cases)
    {
        INFO(bad.name);
        auto const outcome = ask(authorizer, "GET", path, bad.token);
        CHECK(outcome.status == 401);
        CHECK(outcome.challenge.starts_with(fmt::format("Bearer realm=\"{}\", error=\"invalid_token\", error_description=\"", audience)));
        CHECK(outcome.error.find(bad.reason) != std::string::npos);
    }

    // Another issuer's token that names this issuer is still refused: its signature is another key's.
    auto stolen = other.claims(audience, controller);
    stolen["iss"] = server.issuer();
    CHECK(ask(authorizer, "GET", path, other.token(stolen)).status == 401);
    // A basic-auth header is not a bearer token.
    CHECK(authorizer.refusal(HttpRequest{"GET", path, {}, "Basic dXNlcjpwYXNz"})->status == 401);
}

TEST_CASE("a valid token that does not permit the request is refused 403 insufficient_scope")
{
    TestAuthorizationServer server;
    auto const authorizer = authorizerOf(server);
    auto const readOnly = server.token(server.claims(audience, monitor));
    auto const staged = fmt::format("/x-nmos/connection/v1.2/single/receivers/{}/staged", receiverId);

    CHECK(ask(authorizer, "GET", staged, readOnly).status == 200);
    auto const patch = ask(authorizer, "PATCH", staged, readOnly);
    CHECK(patch.status == 403);
    CHECK(patch.challenge.find("error=\"insufficient_scope\"") != std::string::npos);
    CHECK(patch.error ==
          fmt::format("the token's x-nmos-connection claim does not permit write of 'single/receivers/{}/staged'", receiverId));
    // The ticket is write access to the flow: reading it needs the permission to connect the receiver.
    CHECK(ask(authorizer, "GET", "/ticket", readOnly).status == 403);
    // Another API's claim does not stand in for this one's.
    auto const registrationOnly = server.token(server.claims(audience, {{"x-nmos-registration", {{"read", {"*"}}, {"write", {"*"}}}}}));
    CHECK(ask(authorizer, "GET", "/x-nmos/node/v1.3/self", registrationOnly).error == "the token has no x-nmos-node claim");
    // '..' cannot climb out of a permitted path.
    auto const singleOnly = server.token(server.claims(audience, {{"x-nmos-connection", {{"read", {"single/*"}}}}}));
    CHECK(ask(authorizer, "GET", "/x-nmos/connection/v1.1/single/../bulk/receivers", singleOnly).status == 403);
    CHECK(ask(authorizer, "GET", "/x-nmos/connection/v1.1/bulk/receivers", singleOnly).status == 403);
    CHECK(ask(authorizer, "GET", "/x-nmos/connection/v1.1/single/receivers/", singleOnly).status == 200);

    // The API's and the version's roots are readable with the API's claim or its scope alone, the root of all without a
    // token; a preflight needs none.
    auto scopeOnly = server.claims(audience, nlohmann::json::object());
    scopeOnly["scope"] = "node connection";
    auto const scoped = server.token(scopeOnly);
    CHECK(ask(authorizer, "GET", "/x-nmos/node/", scoped).status == 200);
    CHECK(ask(authorizer, "GET", "/x-nmos/node/v1.3/", scoped).status == 200);
    CHECK(ask(authorizer, "GET", "/x-nmos/node/v1.3/self", scoped).status == 403);
    CHECK(ask(authorizer, "GET", "/x-nmos/node/", "").status == 401);
    CHECK(ask(authorizer, "GET", "/", "").status == 200);
    CHECK(ask(authorizer, "GET", "/x-nmos/", "").status == 200);
    CHECK(ask(authorizer, "OPTIONS", staged, "").status == 200);
}

TEST_CASE("a token signed with a key published after the last fetch is accepted, and unknown key ids cannot make it fetch without end")
{
    TestAuthorizationServer server;
    auto const authorizer = authorizerOf(server);
    CHECK(ask(authorizer, "GET", "/x-nmos/node/v1.3/self", server.token(server.claims(audience, controller))).status == 200);
    REQUIRE(server.jwksFetches() == 1);

    // A burst of tokens naming keys nobody published: at most one more fetch.
    for (int i = 0; i < 20; ++i)
    {
        auto const header = mxl::encodeBase64Url(fmt::format(R"({{"alg":"RS512","kid":"key-{}"}})", 100 + i));
        auto const token = header + "." + mxl::encodeBase64Url(server.claims(audience, controller).dump()) + ".c2ln";
        CHECK(ask(authorizer, "GET", "/x-nmos/node/v1.3/self", token).status == 401);
    }
    CHECK(server.jwksFetches() <= 2);

    // A rotated key is refused at once, fetched in the background, and then accepted.
    auto const fetched = server.jwksFetches();
    server.rotateKey();
    auto const rotated = server.token(server.claims(audience, controller));
    auto const first = ask(authorizer, "GET", "/x-nmos/node/v1.3/self", rotated);
    CHECK(first.status == 401);
    CHECK(first.error.find("the token's key id 'key-2' is not known (yet)") != std::string::npos);
    auto const deadline = std::chrono::steady_clock::now() + 30s;
    auto outcome = first;
    while (outcome.status != 200 && std::chrono::steady_clock::now() < deadline)
    {
        std::this_thread::sleep_for(50ms);
        outcome = ask(authorizer, "GET", "/x-nmos/node/v1.3/self", rotated);
    }
    CHECK(outcome.status == 200);
    CHECK(server.jwksFetches() > fetched);
}

TEST_CASE("a token without a key id is checked against a few keys only, and refused where the server publishes more")
{
    TestAuthorizationServer server;
    auto const path = std::string{"/x-nmos/node/v1.3/self"};
    CHECK(ask(authorizerOf(server), "GET", path, server.tokenWithoutKeyId(server.claims(audience, controller))).status == 200);

    for (int i = 0; i < 4; ++i)
    {
        server.rotateKey();
    }
    auto const refused = ask(authorizerOf(server), "GET", path, server.tokenWithoutKeyId(server.claims(audience, controller)));
    CHECK(refused.status == 401);
    CHECK(refused.error == "the token names no key (\"kid\") and the authorization server publishes 5 keys; a token without \"kid\" "
                           "is checked only where it publishes at most 4");
    // A token that names its key is checked against that one.
    CHECK(ask(authorizerOf(server), "GET", path, server.token(server.claims(audience, controller))).status == 200);
}
