// The ticket directory in etcd, end to end: a target service publishes its ticket under a lease, an initiator service
// takes it from its etcd:// key, and a target that dies or restarts changes the key and nothing else. etcd is a real
// server on loopback; every grain that arrives is checked by checksum.
#include "EtcdServer.hpp"
#include "ServiceScenario.hpp"
#include "Skip.hpp"
#include "TestCa.hpp"
#include "TestFlow.hpp"

#include <EtcdClient.hpp>
#include <HttpsTrust.hpp>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <csignal>
#include <memory>
#include <thread>
#include <vector>

namespace mxl::test
{
    namespace
    {
        using namespace std::chrono_literals;
        using Clock = std::chrono::steady_clock;

        constexpr char const* domainName = "studio-a";

        std::string ticketKey(char const* domain = domainName)
        {
            return fmt::format("/mxl/tickets/{}/{}", domain, serviceTestFlowId);
        }

        Settings publishingTarget(ServiceDirectories const& directories, EtcdServer const& etcd)
        {
            auto settings = targetSettings(directories);
            settings.emplace_back("etcd", etcd.endpoint());
            settings.emplace_back("etcd_domain", domainName);
            settings.emplace_back("etcd_lease_s", "2");
            return settings;
        }

        // What every case starts from: etcd on loopback, a client of it, the service directories and the source flow.
        struct EtcdScene
        {
            EtcdServer etcd;
            directory::EtcdClient client{etcd.endpoint(), 5s};
            ServiceDirectories directories;
            PatternSource source{directories.source.path(), serviceTestFlow()};

            // A target publishing in etcd, ready and with its ticket in the key.
            std::unique_ptr<ReadyService> startTarget() const
            {
                auto target = std::make_unique<ReadyService>(publishingTarget(directories, etcd));
                REQUIRE(target->waitForLine(fmt::format("ticket published at '{}' (lease ", ticketKey()), 10s));
                return target;
            }

            // An initiator service taking its ticket from `key`, ready.
            std::unique_ptr<ReadyService> startInitiator(std::string const& key = ticketKey()) const
            {
                return std::make_unique<ReadyService>(initiatorSettings(directories, ticketUrl(key)));
            }

            // What the ticket key holds, which must be something.
            directory::KeyValue storedTicket()
            {
                auto stored = client.get(ticketKey());
                REQUIRE(stored.has_value());
                return *stored;
            }

            [[nodiscard]] std::string ticketUrl(std::string const& key = ticketKey()) const
            {
                return fmt::format("etcd://{}{}", etcd.endpoint(), key);
            }
        };

        // Runs `body` on a fresh scene whose target is publishing, or skips the case where etcd cannot run here. The skip
        // returns from this function, which is why the scene is built here and not in the case.
        template <typename Body>
        void withPublishingTarget(Body const& body)
        {
            MXL_SKIP_IF(EtcdServer::unavailable());
            EtcdScene scene;
            auto target = scene.startTarget();
            body(scene, target);
        }
    }

    TEST_CASE("etcd: the target publishes its ticket at /mxl/tickets/<domain>/<flow id>, an initiator takes it from there, and "
              "SIGTERM deletes the key")
    {
        withPublishingTarget(
            [](EtcdScene& scene, std::unique_ptr<ReadyService>& target)
            {
                auto& [etcd, client, directories, source] = scene;

                // The key holds the ticket exactly as the file does (which ends it with a newline), under a lease.
                auto const stored = scene.storedTicket();
                CHECK(stored.value + "\n" == readFile(directories.ticketFile()));
                CHECK(stored.lease != 0);

                // mxl-info lists it.
                auto const listing = runBuildTool("tools/mxl-info/mxl-info", {"--tickets", "etcd://" + etcd.endpoint()});
                INFO(listing.text);
                CHECK(listing.exitCode == 0);
                CHECK(listing.text.find(fmt::format("etcd {} under /mxl/tickets/: 1 ticket\n  {}\n      epoch {}, provider tcp, ",
                                                    etcd.endpoint(), ticketKey(), ticketEpoch(directories.ticketFile()))) !=
                      std::string::npos);

                auto const initiator = scene.startInitiator();
                {
                    FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
                    requireFlowing(verifier, 20, "through the ticket from etcd");
                }
                CHECK(initiator->output().find(fmt::format("from 'etcd://{}{}'", etcd.endpoint(), ticketKey())) != std::string::npos);

                target->signal(SIGTERM);
                REQUIRE(target->wait(10s) == 0);
                // Withdrawn at once on a clean stop, not after the lease.
                CHECK_FALSE(client.get(ticketKey()).has_value());
            });
    }

    TEST_CASE("etcd: mxl-fabrics-demo's initiator takes -t etcd://HOST:PORT/KEY, and names a key that holds no ticket")
    {
        withPublishingTarget(
            [](EtcdScene& scene, std::unique_ptr<ReadyService>& /*the target publishing the ticket*/)
            {
                auto& [etcd, client, directories, source] = scene;

                auto const missing = runBuildTool("tools/mxl-fabrics-demo/mxl-fabrics-demo",
                                                  {"-i", "-d", directories.source.str(), "-f", serviceTestFlowId, "-t",
                                                   fmt::format("etcd://{}/mxl/tickets/nowhere/x", etcd.endpoint())});
                INFO(missing.text);
                CHECK(missing.exitCode == 2);
                CHECK(missing.text.find(fmt::format("etcd key 'etcd://{}/mxl/tickets/nowhere/x' holds no ticket", etcd.endpoint())) !=
                      std::string::npos);

                Process demo{{binaryPath("tools/mxl-fabrics-demo/mxl-fabrics-demo").string(), "-i", "-d", directories.source.str(), "-f",
                              serviceTestFlowId, "-t", scene.ticketUrl()}};
                FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
                requireFlowing(verifier, 20, "from the demo's initiator");
                demo.signal(SIGINT);
                CHECK(demo.wait(10s) == 0);
            });
    }

    TEST_CASE("etcd: a SIGKILLed target's key expires with its lease, and its restart heals three initiators through the key within 2 s")
    {
        withPublishingTarget(
            [](EtcdScene& scene, std::unique_ptr<ReadyService>& target)
            {
                auto& [etcd, client, directories, source] = scene;
                auto const firstEpoch = ticketEpoch(directories.ticketFile());

                // Three senders of the same source flow, each watching the key; they write the same bytes into the same slots.
                std::vector<std::unique_ptr<NotifySocket>> notifies;
                std::vector<std::unique_ptr<ServiceProcess>> initiators;
                for (int i = 0; i < 3; ++i)
                {
                    notifies.push_back(std::make_unique<NotifySocket>());
                    initiators.push_back(std::make_unique<ServiceProcess>(initiatorSettings(directories, scene.ticketUrl()),
                                                                          notifyEnvironment(*notifies.back())));
                }
                for (std::size_t i = 0; i < initiators.size(); ++i)
                {
                    CAPTURE(i);
                    REQUIRE(notifies[i]->waitFor("READY=1", 10s));
                    REQUIRE(initiators[i]->waitForLine(fmt::format("epoch {}", firstEpoch), 10s));
                }
                {
                    FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
                    requireFlowing(verifier, 20, "from three initiators before the kill");
                }

                target->signal(SIGKILL);
                REQUIRE(target->wait(5s));
                target.reset();
                REQUIRE(client.get(ticketKey()).has_value());
                // Nobody keeps the lease alive any more: the key goes after its 2 s (etcd sweeps expired leases twice a second).
                auto const killedAt = Clock::now();
                while (client.get(ticketKey()) && Clock::now() - killedAt < 30s)
                {
                    std::this_thread::sleep_for(100ms);
                }
                CHECK_FALSE(client.get(ticketKey()).has_value());
                INFO("the key went ", std::chrono::duration<double>(Clock::now() - killedAt).count(), " s after the kill");
                CHECK(Clock::now() - killedAt >= 1s);

                ReadyService restarted{publishingTarget(directories, etcd)};
                auto const restartedAt = Clock::now();
                auto const secondEpoch = ticketEpoch(directories.ticketFile());
                REQUIRE(secondEpoch != firstEpoch);
                // Each polls the key every ticket_poll_ms (200 here) and adds the new epoch's target. A wait returns at once for a
                // line already printed, so the time after the last wait bounds every pick-up.
                for (std::size_t i = 0; i < initiators.size(); ++i)
                {
                    CAPTURE(i);
                    REQUIRE(initiators[i]->waitForLine(fmt::format("new epoch {}", secondEpoch), 10s));
                }
                auto const slowest = std::chrono::duration<double>(Clock::now() - restartedAt).count();
                INFO("the last of the three initiators took the new ticket ", slowest, " s after the new target was ready");
                CHECK(slowest < 2.0);
                FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
                requireFlowing(verifier, 20, "from three initiators after the restart");
            });
    }
}

namespace mxl::test
{
    TEST_CASE("etcd: hostile values in the ticket key (not JSON, nested deep, not an object, not a ticket, another provider's) leave the "
              "working target receiving, each logged once")
    {
        withPublishingTarget(
            [](EtcdScene& scene, std::unique_ptr<ReadyService>& target)
            {
                auto& [etcd, client, directories, source] = scene;
                auto const ticket = scene.storedTicket();
                // The initiator follows a copy in a key of the test's own: the target puts its own key back (below).
                auto const copied = ticketKey("studio-a-copy");
                client.put(copied, ticket.value, 0);

                auto const initiator = scene.startInitiator(copied);
                FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
                requireFlowing(verifier, 20, "before the hostile values");

                auto otherProvider = ticket.value;
                otherProvider.replace(otherProvider.find("\"provider\":\"tcp\""), 16, "\"provider\":\"shm\"");
                struct Hostile
                {
                    char const* name;
                    std::string value;
                    char const* logged;
                };
                std::vector<Hostile> const values{
                    {"not JSON", "this is not a ticket", "not JSON: parse error at line 1, column 2"},
                    {"nested 100000 arrays deep", std::string(100000, '[') + std::string(100000, ']'),
                     "not JSON: the document nests deeper than 64 levels"},
                    {"a JSON array", "[1, 2, 3]", "not a JSON object"},
                    {"an object that is no ticket", R"({"provider":"tcp"})", "cannot be used: the fabrics library cannot read it"},
                    {"another provider's ticket", otherProvider, "cannot be used: it is for provider shm, this initiator uses tcp"},
                };
                for (auto const& hostile : values)
                {
                    client.put(copied, hostile.value, 0);
                    INFO("value: ", std::string{hostile.name});
                    auto const line = initiator->waitForLine(hostile.logged, 10s);
                    REQUIRE_MESSAGE(line, initiator->output());
                    requireFlowing(verifier, 25, hostile.name);
                    // Polled every 200 ms while the grains were checked, and logged once.
                    auto const output = initiator->output();
                    CHECK(output.find(hostile.logged) == output.rfind(hostile.logged));
                    CHECK_FALSE(initiator->wait(0ms));
                    CHECK_FALSE(target->wait(0ms));
                }
                // The real ticket back: the same incarnation, so nothing to re-establish for it (a loaded machine may still see a
                // stall and re-establish for that, which says "stall"), and the same target never stopped receiving.
                client.put(copied, ticket.value, 0);
                requireFlowing(verifier, 25, "after the ticket came back");
                INFO("initiator output:\n", initiator->output());
                CHECK(initiator->output().find("the target restarted") == std::string::npos);

                // A hostile value in the target's own key is put right at its next keep-alive (a third of its 2 s lease).
                client.put(ticketKey(), "this is not a ticket", ticket.lease);
                REQUIRE_MESSAGE(target->waitForLine("was replaced by someone else", 5s), target->output());
                REQUIRE(target->waitForLine("ticket published at", 5s));
                CHECK(scene.storedTicket().value == ticket.value);
            });
    }

    TEST_CASE("etcd secured with TLS, client certificates and authentication: the target publishes, the initiator takes the ticket, "
              "grains move, and a service with the wrong password says why")
    {
        MXL_SKIP_IF(EtcdServer::unavailable());
        TempDomain pki{"svc-etcd-pki"};
        TestCa const facility{pki.path(), "facility"};
        auto const server = facility.issue("etcd", {"127.0.0.1"});
        auto const client = facility.issueWithoutCommonName("mxl-services", {"mxl-services"});
        // The test's own calls (enabling authentication) go as the services' do.
        setHttpsTrust(facility.caFile());
        setHttpsClientCertificate(TlsFiles{client.certificate, client.key});
        EtcdServer etcd{EtcdServer::Secured{server.certificate, server.key, facility.caFile()}};
        etcd.enableAuthentication("mxl", "ticket-writer", "/mxl/");
        setHttpsClientCertificate(std::nullopt);
        setHttpsTrust({});

        auto const secured = [&](Settings settings, std::string const& password)
        {
            settings.insert(settings.end(), {{"tls_ca_file", facility.caFile()},
                                             {"etcd_tls", "true"},
                                             {"etcd_certificate", client.certificate},
                                             {"etcd_key", client.key},
                                             {"etcd_user", "mxl"},
                                             {"etcd_password_file", writeSecretFile(pki.path() / (password + ".password"), password)}});
            return settings;
        };
        ServiceDirectories directories;
        PatternSource source{directories.source.path(), serviceTestFlow()};
        ReadyService target{secured(publishingTarget(directories, etcd), "ticket-writer"), 15s};
        REQUIRE(target.waitForLine(fmt::format("ticket published at '{}' (lease ", ticketKey()), 15s));

        auto const ticketUrl = fmt::format("etcd://{}{}", etcd.endpoint(), ticketKey());
        ServiceProcess initiator{secured(initiatorSettings(directories, ticketUrl), "ticket-writer")};
        FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
        requireFlowing(verifier, 25, "through the ticket from the secured etcd");

        ServiceProcess guessing{secured(initiatorSettings(directories, ticketUrl), "guessed")};
        CHECK(guessing.waitForLine(fmt::format("etcd {}: authenticating as 'mxl' failed", etcd.endpoint()), 15s));
        guessing.signal(SIGTERM);
        CHECK(guessing.wait(20s) == 0);
        requireFlowing(verifier, 25, "after the refused initiator");
        CHECK(target.output().find("ticket-writer") == std::string::npos);
    }
}
