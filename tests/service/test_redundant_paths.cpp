// Redundant paths in the services: a target service with two shm paths ('path' twice, a ticket file per path), one
// initiator service per path as on two hosts, and the first initiator SIGKILLed mid-stream: no grain (or audio sample)
// of the target's flow is missing or wrong, and the target's STATUS= line shows the survivor serving. The two initiators
// of one flow in one domain publish a status file each, which mxl-info lists apart.
#include "SampleChecker.hpp"
#include "SampleSource.hpp"
#include "ServiceScenario.hpp"
#include "TestFlow.hpp"

#include <client/ServiceStatusFile.hpp>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <csignal>
#include <filesystem>
#include <regex>
#include <set>
#include <unistd.h>

namespace mxl::test
{
    namespace
    {
        struct PathCounts
        {
            std::vector<std::uint64_t> first;
            std::vector<std::uint64_t> missing;
            std::vector<std::uint64_t> dropped;
        };

        std::vector<std::uint64_t> numbers(std::string const& list)
        {
            std::vector<std::uint64_t> values;
            std::size_t at = 0;
            while (at < list.size())
            {
                auto const comma = list.find(',', at);
                values.push_back(std::stoull(list.substr(at, comma - at)));
                at = comma == std::string::npos ? list.size() : comma + 1;
            }
            return values;
        }

        // The path counters of the last status text in `text` that has them.
        std::optional<PathCounts> lastPathCounts(std::string const& text)
        {
            static std::regex const pattern{R"(path_first=([\d,]+) path_late=[\d,]+ path_missing=([\d,]+) path_dropped=([\d,]+))"};
            std::optional<PathCounts> counts;
            for (std::sregex_iterator match{text.begin(), text.end(), pattern}, end; match != end; ++match)
            {
                counts = PathCounts{numbers((*match)[1]), numbers((*match)[2]), numbers((*match)[3])};
            }
            return counts;
        }

        // The pids of the initiator status files of `flowId` in `domain`.
        std::set<pid_t> initiatorStatusPids(std::filesystem::path const& domain, std::string const& flowId)
        {
            std::set<pid_t> pids;
            for (auto const& entry : client::readServiceStatusFiles(domain))
            {
                auto const* status = std::get_if<client::ServiceStatus>(&entry.content);
                if (status != nullptr && status->role == "initiator" && status->flowId == flowId)
                {
                    pids.insert(status->pid);
                }
            }
            return pids;
        }

        // A target service on two shm paths receiving into `definition`, and one initiator service per path sending
        // `flowId`; the tickets are checked to be one per path, each of its own incarnation.
        struct RedundantServices
        {
            ServiceDirectories const& directories;
            std::string secondTicket = (directories.tickets.path() / "path-2.ticket.json").string();
            NotifySocket targetNotify;
            std::unique_ptr<ServiceProcess> target;
            std::unique_ptr<ServiceProcess> first;
            std::unique_ptr<ServiceProcess> second;

            RedundantServices(ServiceDirectories const& serviceDirectories, std::filesystem::path const& definition,
                              std::string const& flowId)
                : directories{serviceDirectories}
            {
                // shm endpoint names are host-wide: make them unique to this test process.
                auto const label = fmt::format("svc-redundant-{}", ::getpid());
                auto settings = overSharedMemory(targetSettings(directories, "127.0.0.1", definition));
                settings.emplace_back("path", label + "-a");
                settings.emplace_back("path", label + "-b");
                settings.emplace_back("ticket_file", secondTicket);
                target = std::make_unique<ServiceProcess>(settings, notifyEnvironment(targetNotify));
                REQUIRE_MESSAGE(targetNotify.waitFor("READY=1", std::chrono::seconds{10}), target->output());
                auto const firstEpoch = ticketEpoch(directories.ticketFile());
                auto const secondEpoch = ticketEpoch(secondTicket);
                CHECK(firstEpoch != 0);
                CHECK(secondEpoch != 0);
                CHECK(firstEpoch != secondEpoch);
                first =
                    std::make_unique<ServiceProcess>(overSharedMemory(initiatorSettings(directories, directories.ticketFile(), flowId)));
                second = std::make_unique<ServiceProcess>(overSharedMemory(initiatorSettings(directories, secondTicket, flowId)));
            }

            // SIGTERM to the surviving initiator; the units it reported lost (the "stopping:" line's lost=): a loaded machine
            // may make it miss a deadline, which no redundancy helps once it is the only path.
            std::uint64_t stopSurvivor()
            {
                second->signal(SIGTERM);
                CHECK(second->wait(std::chrono::seconds{10}) == std::optional<int>{0});
                auto const output = second->output();
                auto const at = output.rfind(" lost=");
                REQUIRE_MESSAGE(at != std::string::npos, "the surviving initiator printed no lost= figure:\n", output);
                return std::stoull(output.substr(at + 6));
            }

            // SIGTERM to the target; its output, with the "stopping:" line and its path counters.
            std::string stopTarget()
            {
                target->signal(SIGTERM);
                CHECK(target->wait(std::chrono::seconds{10}) == std::optional<int>{0});
                return target->output();
            }

            // The counters on the target's "stopping:" line.
            static PathCounts stoppingCounts(std::string const& output)
            {
                auto const stopping = output.find("stopping: ");
                REQUIRE(stopping != std::string::npos);
                auto const counts = lastPathCounts(output.substr(stopping));
                REQUIRE(counts.has_value());
                REQUIRE(counts->first.size() == 2);
                return *counts;
            }

            // A clean stop withdraws both tickets and removes the path flows' private directories.
            void checkCleanedUp() const
            {
                CHECK_FALSE(std::filesystem::exists(directories.ticketFile()));
                CHECK_FALSE(std::filesystem::exists(secondTicket));
                for (auto const& entry : std::filesystem::directory_iterator{directories.destination.path()})
                {
                    CHECK_MESSAGE(!entry.path().filename().string().starts_with(".mxl-private-"), entry.path().string(),
                                  " was left behind");
                }
            }
        };
    }

    TEST_CASE("redundant paths: a target service on two shm paths loses no grain when one path's initiator service is SIGKILLed")
    {
        ServiceDirectories directories;
        PatternSource source{directories.source.path(), serviceTestFlow()};
        RedundantServices services{directories, serviceTestFlow(), serviceTestFlowId};
        FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
        // 2 s at 50 grains/s with both paths, then the kill without a pause in the check, then 4 s on the survivor.
        auto const bothUp = verifier.check(100, std::chrono::seconds{10});
        auto const killed = services.first->pid();
        auto const survivor = services.second->pid();
        auto const bothFiles = initiatorStatusPids(directories.source.path(), serviceTestFlowId);
        services.first->signal(SIGKILL);
        auto const afterKill = verifier.check(200, std::chrono::seconds{10});
        REQUIRE(services.first->wait(std::chrono::seconds{5}));
        auto const statusAfterKill = services.targetNotify.waitFor("path_first=", std::chrono::seconds{2});
        auto const listing = runBuildTool("tools/mxl-info/mxl-info", {"-d", directories.source.str()}).text;

        auto const survivorLost = services.stopSurvivor();
        auto const leftFiles = initiatorStatusPids(directories.source.path(), serviceTestFlowId);
        auto const output = services.stopTarget();
        INFO("target output:\n", output, "\nsurvivor output:\n", services.second->output());
        MESSAGE("verified ", bothUp.verified, " grains with both paths and ", afterKill.verified, " after the kill; missing ",
                bothUp.missing + afterKill.missing, ", announced lost (invalid) ", bothUp.invalidated + afterKill.invalidated, ", wrong ",
                bothUp.mismatched + afterKill.mismatched, ", not looked at (checker overrun) ", bothUp.overrun + afterKill.overrun,
                "; the survivor reported ", survivorLost, " lost");
        CHECK(bothUp.verified >= 100);
        CHECK(afterKill.verified >= 200);
        // None on an unloaded machine.
        CHECK(bothUp.missing + bothUp.invalidated + afterKill.missing + afterKill.invalidated <= survivorLost);
        CHECK(bothUp.mismatched + afterKill.mismatched == 0);
        CHECK(statusAfterKill.has_value());
        // The survivor served the grains after the kill, which the killed path counts missing; no copy lost a race.
        auto const counts = RedundantServices::stoppingCounts(output);
        CHECK(counts.first[1] >= 200);
        CHECK(counts.missing[0] >= 200);
        CHECK(counts.dropped[0] + counts.dropped[1] == 0);
        services.checkCleanedUp();

        // A status file per initiator, both listed by mxl-info, the killed one stale; the survivor's clean stop removed
        // its own file alone.
        INFO("mxl-info of the source domain:\n", listing);
        CHECK(bothFiles == std::set<pid_t>{killed, survivor});
        CHECK(occurrences(listing, "      service initiator: ") == 2);
        CHECK(occurrences(listing, fmt::format("      service initiator: stale (pid {} is gone;", killed)) == 1);
        CHECK(leftFiles == std::set<pid_t>{killed});
    }

    TEST_CASE("redundant paths: an audio target service on two shm paths keeps every sample when one path's initiator service is "
              "SIGKILLed")
    {
        constexpr std::uint32_t seed = 0x7E2D;
        constexpr std::uint64_t samplesPerSecond = 48000;
        ServiceDirectories directories;
        SampleSource source{directories.source.path().string(), serviceAudioFlow(), seed};
        RedundantServices services{directories, serviceAudioFlow(), serviceAudioFlowId};
        SampleChecker verifier{directories.destination.path().string(), serviceAudioFlowId, seed};
        auto const bothUp = verifier.check(2 * samplesPerSecond, std::chrono::seconds{10});
        services.first->signal(SIGKILL);
        auto const afterKill = verifier.check(4 * samplesPerSecond, std::chrono::seconds{10});
        REQUIRE(services.first->wait(std::chrono::seconds{5}));

        auto const survivorLostBatches = services.stopSurvivor();
        auto const output = services.stopTarget();
        INFO("target output:\n", output, "\nsurvivor output:\n", services.second->output());
        MESSAGE("verified ", bothUp.verified, " samples with both paths and ", afterKill.verified, " after the kill; mismatched ",
                bothUp.mismatched + afterKill.mismatched, ", overrun by the checker ", bothUp.gone + afterKill.gone,
                "; the survivor reported ", survivorLostBatches, " batches lost");
        CHECK(bothUp.verified >= 2 * samplesPerSecond);
        CHECK(afterKill.verified >= 4 * samplesPerSecond);
        // Every sample the checker looked at is the source's (the verifier checks each one as it is committed, in order),
        // but for batches the survivor reported lost: none on an unloaded machine.
        CHECK(bothUp.mismatched + afterKill.mismatched <= survivorLostBatches * source.batchSamples());
        CHECK(source.refused() == 0);
        auto const counts = RedundantServices::stoppingCounts(output);
        CHECK(counts.first[1] >= 4 * samplesPerSecond);
        CHECK(counts.dropped[0] + counts.dropped[1] == 0);
        services.checkCleanedUp();
    }
}
