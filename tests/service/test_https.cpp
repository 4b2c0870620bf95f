// HTTPS on a service's http_listen (BCP-003-01): the ticket handed over TLS only to initiators that trust the
// facility's CA, plain HTTP refused, and a certificate renewed on disk taken on SIGHUP while grains keep moving.
#include "ConnectionPair.hpp"
#include "ServiceScenario.hpp"
#include "TestCa.hpp"
#include "TestFlow.hpp"

#include <HttpClient.hpp>
#include <HttpsTrust.hpp>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <csignal>
#include <filesystem>

namespace mxl::test
{
    namespace
    {
        void requireGrains(FlowChecker& verifier, std::uint64_t grains, std::string const& when, ServiceProcess& target,
                           ServiceProcess& initiator)
        {
            auto const result = verifier.check(grains, std::chrono::seconds{15});
            bool const failed = result.verified < grains || result.mismatched != 0 || result.missing + result.invalidated != 0;
            INFO(when, (failed ? "\ntarget:\n" + target.output() + "\ninitiator:\n" + initiator.output() : std::string{}));
            CHECK(result.mismatched == 0);
            CHECK(result.missing + result.invalidated == 0);
            REQUIRE(result.verified >= grains);
        }

        std::string getWith(std::string const& caFile, std::string const& url)
        {
            setHttpsTrust(caFile);
            auto got = httpGet(url, std::chrono::seconds{10});
            setHttpsTrust({});
            auto const* failure = std::get_if<HttpFailure>(&got);
            return failure != nullptr ? "failed: " + failure->reason : std::get<std::string>(got);
        }

        void replace(IssuedCertificate const& with, IssuedCertificate const& files)
        {
            std::filesystem::copy_file(with.certificate, files.certificate, std::filesystem::copy_options::overwrite_existing);
            std::filesystem::copy_file(with.key, files.key, std::filesystem::copy_options::overwrite_existing);
        }

        // A facility's CA, the certificate of the service that serves HTTPS (for 127.0.0.1), and a source flow.
        struct HttpsScene
        {
            explicit HttpsScene(std::string const& server)
                : served{facility.issue(server, {"127.0.0.1"})}
            {
            }

            ServiceDirectories directories;
            TempDomain pki{"svc-pki"};
            TestCa const facility{pki.path(), "facility"};
            IssuedCertificate const served;
            PatternSource source{directories.source.path(), serviceTestFlow()};
        };
    }

    TEST_CASE("a target on HTTPS hands its ticket over TLS to initiators that trust its CA, and takes a renewed certificate on SIGHUP "
              "while grains flow")
    {
        HttpsScene const scene{"target"};
        auto const& [directories, pki, facility, served, source] = scene;

        auto settings = targetSettings(directories);
        settings.emplace_back("http_tls_certificate", served.certificate);
        settings.emplace_back("http_tls_key", served.key);
        ServiceProcess target{settings};
        auto const port = target.httpPort();
        REQUIRE(port != 0);
        CHECK(target.output().find("http: serving HTTPS (TLS 1.2 and 1.3) with the certificate of subject 'CN=target', issuer "
                                   "'CN=facility test CA'") != std::string::npos);
        auto const ticketUrl = fmt::format("https://127.0.0.1:{}/ticket", port);

        // Plain HTTP gets nothing, and a client of no facility does not trust the target.
        CHECK(getWith({}, fmt::format("http://127.0.0.1:{}/ticket", port)).starts_with("failed: "));
        CHECK(getWith({}, ticketUrl).starts_with("failed: the server's certificate is not trusted"));
        REQUIRE(getWith(facility.caFile(), ticketUrl).find("\"epoch\"") != std::string::npos);

        auto initiatorConfig = initiatorSettings(directories, ticketUrl);
        initiatorConfig.emplace_back("tls_ca_file", facility.caFile());
        ServiceProcess initiator{initiatorConfig};
        FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
        requireGrains(verifier, 20, "over the ticket fetched by HTTPS", target, initiator);

        // An initiator that trusts only the system's authorities never gets the ticket, and says why.
        ServiceProcess untrusting{initiatorSettings(directories, ticketUrl)};
        CHECK(untrusting.waitForLine("the server's certificate is not trusted", std::chrono::seconds{15}));
        untrusting.signal(SIGTERM);
        CHECK(untrusting.wait(std::chrono::seconds{20}) == 0);

        // Renewed under a new authority: only the reloaded certificate satisfies a client that trusts the new one alone.
        TestCa const renewedAuthority{pki.path(), "renewed"};
        replace(renewedAuthority.issue("target-renewed", {"127.0.0.1"}), served);
        target.signal(SIGHUP);
        REQUIRE(target.waitForLine("SIGHUP: HTTPS now uses the certificate of subject 'CN=target-renewed'", std::chrono::seconds{10}));
        CHECK(getWith(renewedAuthority.caFile(), ticketUrl).find("\"epoch\"") != std::string::npos);
        CHECK(getWith(facility.caFile(), ticketUrl).starts_with("failed: the server's certificate is not trusted"));
        requireGrains(verifier, 20, "after the reload", target, initiator);

        // Half a renewal is refused; the certificate in use stays, and so do the grains.
        std::filesystem::copy_file(facility.issue("half", {"127.0.0.1"}).certificate, served.certificate,
                                   std::filesystem::copy_options::overwrite_existing);
        target.signal(SIGHUP);
        REQUIRE(target.waitForLine("SIGHUP: HTTPS keeps the certificate in use (subject 'CN=target-renewed'", std::chrono::seconds{10}));
        CHECK(getWith(renewedAuthority.caFile(), ticketUrl).find("\"epoch\"") != std::string::npos);
        requireGrains(verifier, 20, "after the refused reload", target, initiator);
        CHECK_FALSE(target.wait(std::chrono::milliseconds{0}));
        CHECK_FALSE(initiator.wait(std::chrono::milliseconds{0}));
        CHECK(target.output().find("BEGIN") == std::string::npos);
    }

    TEST_CASE("is-05: a receiver hands its ticket over TLS to a sender whose Connection API is served over HTTPS, and grains arrive")
    {
        HttpsScene const scene{"initiator"};
        auto const& [directories, pki, facility, served, source] = scene;

        auto targetConfig = targetSettings(directories);
        targetConfig.emplace_back("tls_ca_file", facility.caFile());
        ServiceProcess target{targetConfig};
        auto initiatorConfig = UnconnectedPair::unconnectedInitiator(directories);
        initiatorConfig.emplace_back("http_tls_certificate", served.certificate);
        initiatorConfig.emplace_back("http_tls_key", served.key);
        ServiceProcess initiator{initiatorConfig};
        auto const targetPort = target.httpPort();
        auto const initiatorPort = initiator.httpPort();
        REQUIRE(targetPort != 0);
        REQUIRE(initiatorPort != 0);
        REQUIRE(initiator.waitForLine("waiting for an IS-05 activation of sender", std::chrono::seconds{10}));

        auto const sendersText =
            getWith(facility.caFile(), fmt::format("https://127.0.0.1:{}{}/single/senders/", initiatorPort, connectionApi));
        INFO("senders: ", sendersText);
        auto const senders = nlohmann::json::parse(sendersText);
        REQUIRE(senders.size() == 1);
        auto senderId = senders[0].get<std::string>();
        senderId.pop_back();
        auto const senderActive = nlohmann::json::parse(getWith(
            facility.caFile(), fmt::format("https://127.0.0.1:{}{}/single/senders/{}/active", initiatorPort, connectionApi, senderId)));
        auto const& leg = senderActive["transport_params"][0];
        REQUIRE(leg["ext_mxl_sender_api"].get<std::string>().starts_with("https://"));

        ApiClient receiverApi{targetPort};
        auto const receivers =
            receiverApi.document(fmt::format("{}/single/receivers/", connectionApi), "is-05-v1.2/sender-receiver-base.json");
        REQUIRE(receivers.size() == 1);
        auto receiverId = receivers[0].get<std::string>();
        receiverId.pop_back();
        nlohmann::json const body{{"sender_id", senderId},
                                  {"master_enable", true},
                                  {"transport_params", nlohmann::json::array({{{"mxl_domain_id", leg["mxl_domain_id"]},
                                                                               {"mxl_flow_id", leg["mxl_flow_id"]},
                                                                               {"ext_mxl_sender_api", leg["ext_mxl_sender_api"]}}})},
                                  {"activation", {{"mode", "activate_immediate"}}}};
        auto const answer = receiverApi.patch(fmt::format("{}/single/receivers/{}/staged", connectionApi, receiverId), body.dump());
        INFO(answer.body.dump());
        REQUIRE(answer.status == 200);

        FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
        requireGrains(verifier, 20, "after the hand-over over HTTPS", target, initiator);
        CHECK(target.output().find("IS-05: ticket handed to sender") != std::string::npos);
    }
}
