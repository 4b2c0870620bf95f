// IS-10 authorization on a target (auth_server): its Node and Connection APIs and its ticket refused without the right
// bearer token, 401 or 403 with a Bearer challenge, over real HTTP, while an initiator's grains keep moving; the right
// token reads, connects and gets the ticket; /metrics stays open unless it is protected.
#include "RegistryProcess.hpp"
#include "SchemaCheck.hpp"
#include "ServiceScenario.hpp"
#include "SilentServer.hpp"
#include "Skip.hpp"
#include "TestAuthorizationServer.hpp"
#include "TestCa.hpp"
#include "TestFlow.hpp"

#include <AccessPolicy.hpp>
#include <AccessToken.hpp>
#include <AuthorizationServer.hpp>
#include <HttpsTrust.hpp>
#include <common/Base64.hpp>

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <csignal>
#include <set>
#include <thread>

namespace mxl::test
{
    namespace
    {
        using namespace std::chrono_literals;

        constexpr char const* audience = "rx1.studio-a.test";

        struct AuthAnswer
        {
            int status = 0;
            std::string challenge;
            std::string body;
        };

        AuthAnswer request(int port, std::string const& method, std::string const& path, std::string const& token,
                           std::string const& body = {})
        {
            httplib::Client client{"127.0.0.1", port};
            client.set_read_timeout(10, 0);
            httplib::Headers headers;
            if (!token.empty())
            {
                headers.emplace("Authorization", "Bearer " + token);
            }
            auto const result = method == "GET" ? client.Get(path, headers) : client.Patch(path, headers, body, "application/json");
            REQUIRE(result);
            return {result->status, result->get_header_value("WWW-Authenticate"), result->body};
        }
    }

    TEST_CASE("a target with auth_server serves nothing protected without the right token, and grains move throughout")
    {
        TestAuthorizationServer authority;
        ServiceDirectories directories;
        PatternSource source{directories.source.path(), serviceTestFlow()};
        auto settings = targetSettings(directories);
        settings.emplace_back("auth_server", authority.issuer());
        settings.emplace_back("auth_audience", audience);
        ServiceProcess target{settings};
        auto const port = target.httpPort();
        REQUIRE(port != 0);
        ServiceProcess initiator{initiatorSettings(directories, directories.ticketFile())};
        FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
        REQUIRE(verifier.check(10, 15s).verified >= 10);

        auto const controller = authority.token(authority.claims(
            audience, {{"x-nmos-node", {{"read", {"*"}}}}, {"x-nmos-connection", {{"read", {"*"}}, {"write", {"single/receivers/*"}}}}}));
        auto const monitor =
            authority.token(authority.claims(audience, {{"x-nmos-node", {{"read", {"*"}}}}, {"x-nmos-connection", {{"read", {"*"}}}}}));
        auto const self = request(port, "GET", "/x-nmos/node/v1.3/self", controller);
        REQUIRE(self.status == 200);
        auto const receivers = nlohmann::json::parse(request(port, "GET", "/x-nmos/node/v1.3/receivers/", monitor).body);
        REQUIRE(receivers.size() == 1);
        auto const staged = fmt::format("/x-nmos/connection/v1.2/single/receivers/{}/staged", receivers[0]["id"].get<std::string>());
        auto const enabled = nlohmann::json::parse(request(port, "GET", staged, monitor).body)["master_enable"];

        struct Refused
        {
            char const* name;
            std::string method;
            std::string path;
            std::string token;
            int status;
            char const* challenge;
        };
        auto const claims = authority.claims(audience, {{"x-nmos-node", {{"read", {"*"}}}}, {"x-nmos-connection", {{"write", {"*"}}}}});
        std::vector<Refused> const refusals{
            {"no token", "GET", "/x-nmos/node/v1.3/self", "", 401, "Bearer realm=\"rx1.studio-a.test\""},
            {"no token, ticket", "GET", "/ticket", "", 401, "Bearer realm=\"rx1.studio-a.test\""},
            {"no token, PATCH", "PATCH", staged, "", 401, "Bearer realm=\"rx1.studio-a.test\""},
            {"expired", "GET", "/x-nmos/node/v1.3/self",
             authority.token(authority.claims(audience, {{"x-nmos-node", {{"read", {"*"}}}}}, -30s)), 401,
             "error=\"invalid_token\", error_description=\"the token expired at"},
            {"forged", "GET", "/ticket", authority.forgedToken(claims), 401, "error=\"invalid_token\""},
            {"wrong audience", "GET", "/x-nmos/node/v1.3/self",
             authority.token(authority.claims("rx2.studio-a.test", {{"x-nmos-node", {{"read", {"*"}}}}})), 401,
             "does not include 'rx1.studio-a.test'"},
            {"read-only PATCH", "PATCH", staged, monitor, 403, "error=\"insufficient_scope\""},
            {"read-only ticket", "GET", "/ticket", monitor, 403, "error=\"insufficient_scope\""},
        };
        for (auto const& refused : refusals)
        {
            INFO(std::string{refused.name});
            // A PATCH that would flip master_enable if it got through.
            auto const answer =
                request(port, refused.method, refused.path, refused.token, fmt::format(R"({{"master_enable": {}}})", !enabled.get<bool>()));
            CHECK(answer.status == refused.status);
            CHECK(answer.challenge.find(refused.challenge) != std::string::npos);
            CHECK(answer.body.find("\"epoch\"") == std::string::npos);
        }
        // Nothing refused changed the receiver, and the grains never stopped.
        CHECK(nlohmann::json::parse(request(port, "GET", staged, monitor).body)["master_enable"] == enabled);
        auto const during = verifier.check(25, 15s);
        CHECK(during.mismatched == 0);
        CHECK(during.verified >= 25);

        // The right token: the ticket, and a PATCH that takes effect.
        CHECK(request(port, "GET", "/ticket", controller).body.find("\"epoch\"") != std::string::npos);
        CHECK(request(port, "PATCH", staged, controller, R"({"activation": {"mode": null}})").status == 200);
        CHECK(request(port, "GET", "/metrics", "").status == 200);
        CHECK(target.output().find("auth: refused GET /ticket: the token's x-nmos-connection claim does not permit write of "
                                   "'single/receivers/") != std::string::npos);
        // Tokens never reach the journal.
        CHECK(target.output().find(controller.substr(0, 40)) == std::string::npos);
        CHECK_FALSE(target.wait(0ms));
    }

    TEST_CASE("a target whose authorization server never answers serves /metrics and refuses tokens at once while the key fetch waits")
    {
        SilentServer silent;
        ServiceDirectories directories;
        auto settings = targetSettings(directories);
        settings.emplace_back("auth_server", silent.url());
        settings.emplace_back("auth_audience", audience);
        ServiceProcess target{settings};
        auto const port = target.httpPort(30s);
        REQUIRE(port != 0);

        // An intruder's tokens of a key nobody published, once a second: each one asks for the keys again.
        auto const forged = encodeBase64Url(R"({"alg":"RS512","kid":"k1"})") + "." + encodeBase64Url(R"({"sub":"intruder"})") + ".c2ln";
        std::atomic<bool> done{false};
        std::thread intruder{[&]
                             {
                                 httplib::Client client{"127.0.0.1", port};
                                 client.set_read_timeout(10, 0);
                                 while (!done)
                                 {
                                     client.Get("/x-nmos/node/v1.3/self", {{"Authorization", "Bearer " + forged}});
                                     std::this_thread::sleep_for(1s);
                                 }
                             }};
        for (int round = 0; round < 3; ++round)
        {
            INFO("round ", round);
            // A fetch has just begun to wait on the silent server; it gives up after the service's 2 s.
            auto const deadline = std::chrono::steady_clock::now() + 30s;
            while (silent.openConnections() > 0 && std::chrono::steady_clock::now() < deadline)
            {
                std::this_thread::sleep_for(10ms);
            }
            while (silent.openConnections() == 0 && std::chrono::steady_clock::now() < deadline)
            {
                std::this_thread::sleep_for(10ms);
            }
            REQUIRE(silent.openConnections() > 0);
            auto const closed = silent.closedConnections();
            CHECK(request(port, "GET", "/metrics", "").status == 200);
            auto const refused = request(port, "GET", "/x-nmos/node/v1.3/self", forged);
            CHECK(refused.status == 401);
            CHECK(refused.body.find("the authorization server's keys cannot be fetched") != std::string::npos);
            // Both were answered before that fetch ended.
            CHECK(silent.closedConnections() == closed);
            while (silent.closedConnections() == closed && std::chrono::steady_clock::now() < deadline)
            {
                std::this_thread::sleep_for(10ms);
            }
        }
        done = true;
        intruder.join();
        CHECK_FALSE(target.wait(0ms));
        // Said once, not once per fetch.
        auto const output = target.output();
        auto const line = fmt::format("auth: the keys of '{}' cannot be fetched", silent.url());
        auto const said = output.find(line);
        CHECK(said != std::string::npos);
        CHECK(output.find(line, said + 1) == std::string::npos);
    }

    TEST_CASE("an initiator with auth_client_id gets its own token and the ticket of a secured target over HTTPS (URLs written "
              "HTTPS://), and one whose client may not connect the receiver gets no ticket")
    {
        ServiceDirectories directories;
        TempDomain secrets{"svc-secrets"};
        TestCa const facility{secrets.path(), "facility"};
        auto const served = facility.issue("rx1", {"127.0.0.1"});
        // The client's secret goes to an https:// authorization server only.
        auto const authorityCertificate = facility.issue("auth", {"127.0.0.1"});
        TestAuthorizationServer authority{TlsFiles{authorityCertificate.certificate, authorityCertificate.key}};
        authority.addClient("tx1", "s3cret tx1", {audience}, {{"x-nmos-connection", {{"read", {"*"}}, {"write", {"single/receivers/*"}}}}});
        authority.addClient("viewer", "s3cret viewer", {audience}, {{"x-nmos-connection", {{"read", {"*"}}}}});

        // The issuer and the ticket's URL with their schemes in capitals, which are the same URLs (RFC 3986): tokens name
        // the issuer in lower case.
        auto const issuer = "HTTPS" + authority.issuer().substr(5);
        PatternSource source{directories.source.path(), serviceTestFlow()};
        auto settings = targetSettings(directories);
        settings.insert(settings.end(), {{"auth_server", issuer},
                                         {"auth_audience", audience},
                                         {"http_tls_certificate", served.certificate},
                                         {"http_tls_key", served.key},
                                         {"tls_ca_file", facility.caFile()}});
        ServiceProcess target{settings};
        auto const port = target.httpPort();
        REQUIRE(port != 0);
        auto const ticketUrl = fmt::format("HTTPS://127.0.0.1:{}/ticket", port);

        auto const initiatorOf = [&](std::string const& client, std::string const& secret)
        {
            auto config = initiatorSettings(directories, ticketUrl);
            config.insert(config.end(), {{"auth_server", issuer},
                                         {"auth_client_id", client},
                                         {"auth_client_secret_file", writeSecretFile(secrets.path() / (client + ".secret"), secret)},
                                         {"tls_ca_file", facility.caFile()}});
            return config;
        };
        {
            ServiceProcess viewer{initiatorOf("viewer", "s3cret viewer")};
            CHECK(viewer.waitForLine(fmt::format("no ticket: '{}': the server answered 403", ticketUrl), 20s));
            viewer.signal(SIGTERM);
            CHECK(viewer.wait(20s) == 0);
        }
        {
            ServiceProcess impostor{initiatorOf("tx1", "guessed")};
            CHECK(impostor.waitForLine("auth: no access token for client 'tx1'", 20s));
            CHECK(impostor.waitForLine("the server answered 401", 20s));
            impostor.signal(SIGTERM);
            CHECK(impostor.wait(20s) == 0);
        }

        ServiceProcess initiator{initiatorOf("tx1", "s3cret tx1")};
        FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
        auto const moved = verifier.check(30, 20s);
        INFO("target:\n", target.output(), "\ninitiator:\n", initiator.output());
        CHECK(moved.mismatched == 0);
        REQUIRE(moved.verified >= 30);
        CHECK(initiator.output().find("auth: got an access token for client 'tx1'") != std::string::npos);
        // The viewer's and tx1's tokens came from the token endpoint; none of them is in either journal.
        auto const issued = authority.issuedTokens();
        REQUIRE(issued.size() >= 2);
        for (auto const& token : issued)
        {
            CHECK(initiator.output().find(token.substr(token.size() - 40)) == std::string::npos);
            CHECK(target.output().find(token.substr(token.size() - 40)) == std::string::npos);
        }
    }

    TEST_CASE("a registry that requires bearer tokens over HTTPS gets the target registered with tokens of the target's own client")
    {
        MXL_SKIP_IF(schemaCheckUnavailable());
        TempDomain secrets{"svc-registry-secrets"};
        TestCa const facility{secrets.path(), "facility"};
        auto const authorityCertificate = facility.issue("auth", {"127.0.0.1"});
        TestAuthorizationServer authority{TlsFiles{authorityCertificate.certificate, authorityCertificate.key}};
        auto const registryCertificate = facility.issue("registry", {"127.0.0.1"});
        RegistryProcess registry{0, 12s,
                                 RegistryProcess::Secured{registryCertificate.certificate, registryCertificate.key, facility.caFile()}};
        authority.addClient("rx1", "rx1 secret", {"registry.test"}, {{"x-nmos-registration", {{"read", {"*"}}, {"write", {"*"}}}}});
        auto const secretFile = writeSecretFile(secrets.path() / "rx1.secret", "rx1 secret");

        ServiceDirectories directories;
        auto settings = targetSettings(directories);
        settings.insert(settings.end(), {{"nmos_registry", registry.url()},
                                         {"tls_ca_file", facility.caFile()},
                                         {"auth_server", authority.issuer()},
                                         {"auth_audience", audience},
                                         {"auth_client_id", "rx1"},
                                         {"auth_client_secret_file", secretFile}});
        ServiceProcess target{settings};
        REQUIRE(target.httpPort() != 0);
        auto const held = registry.waitForResources([](nlohmann::json const& all) { return all.size() == 3; }, 20s);
        REQUIRE(held.size() == 3);
        CHECK(held[0]["type"] == "node");
        CHECK(held[0]["data"]["href"].get<std::string>().starts_with("http://"));

        // Every request reached the registry with a token that its authorization server signed for it, permitting
        // registration.
        setHttpsTrust(facility.caFile());
        auto server = std::make_shared<auth::AuthorizationServer>(authority.issuer(), 5s);
        auto const keys = server->awaitKeys(20s);
        setHttpsTrust({});
        REQUIRE(std::holds_alternative<std::shared_ptr<auth::JsonWebKeys const>>(keys));
        std::set<std::string> tokens;
        for (auto const& event : registry.events())
        {
            if (event["kind"] == "authorization")
            {
                REQUIRE(event["token"].is_string());
                tokens.insert(event["token"].get<std::string>());
            }
        }
        REQUIRE_FALSE(tokens.empty());
        for (auto const& token : tokens)
        {
            auto const parsed = auth::parseToken(token);
            REQUIRE(std::holds_alternative<auth::SignedToken>(parsed));
            auto const& signedToken = std::get<auth::SignedToken>(parsed);
            CHECK(auth::signatureVerifies(signedToken, *std::get<std::shared_ptr<auth::JsonWebKeys const>>(keys)));
            CHECK(auth::claimsProblem(signedToken.claims, {authority.issuer(), "registry.test"}, std::chrono::system_clock::now()) == "");
            CHECK(auth::permissionProblem(signedToken.claims, {"registration", "resource", auth::Access::Write, false}) == "");
        }
    }
}
