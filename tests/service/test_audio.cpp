// Audio through the services: a 48 kHz stereo float32 flow written in real time by this process, moved by a target and
// an initiator service over tcp and over shm, every sample compared at the target with what the source wrote; and the
// target killed and restarted, and a ticket of a new epoch whose target refuses connections. Losses the initiator reports are tolerated (a
// slow CI machine may miss a deadline), a sample missing or wrong at the target that no reported loss accounts for is not.
#include "SampleChecker.hpp"
#include "SampleSource.hpp"
#include "ServiceScenario.hpp"
#include "UnreachableTicket.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <csignal>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <thread>

namespace mxl::test
{
    namespace
    {
        using Clock = std::chrono::steady_clock;

        constexpr std::uint32_t seed = 0x5A3F;
        constexpr std::uint64_t samplesPerSecond = 48000;

        // The value of `key=` in the last line of `output` that has it ("stopping: state=... lost=3 ..."); nullopt if none.
        std::optional<std::uint64_t> lastFigure(std::string const& output, std::string const& key)
        {
            auto const at = output.rfind(" " + key + "=");
            if (at == std::string::npos)
            {
                return std::nullopt;
            }
            return std::stoull(output.substr(at + key.size() + 2));
        }

        struct AudioPair
        {
            ServiceDirectories directories;
            SampleSource source{directories.source.path().string(), serviceAudioFlow(), seed};
            bool sharedMemory;

            explicit AudioPair(bool overShm)
                : sharedMemory{overShm}
            {
            }

            [[nodiscard]] Settings target() const
            {
                auto settings = targetSettings(directories, "127.0.0.1", serviceAudioFlow());
                return sharedMemory ? overSharedMemory(std::move(settings)) : settings;
            }

            [[nodiscard]] Settings initiator() const
            {
                auto settings = initiatorSettings(directories, directories.ticketFile(), serviceAudioFlowId);
                return sharedMemory ? overSharedMemory(std::move(settings)) : settings;
            }
        };

        // Every sample of the checked window verified, or accounted for by losses the initiator reported (in batches).
        void checkNoSilentLoss(SampleCounts const& result, std::uint64_t initiatorLostBatches, std::size_t batchSamples)
        {
            INFO("verified ", result.verified, " samples, mismatched ", result.mismatched, " (", result.wordsMismatched,
                 " words), overrun by the checker ", result.gone, "; the initiator reported ", initiatorLostBatches, " batches lost");
            CHECK(result.mismatched <= initiatorLostBatches * batchSamples);
            if (initiatorLostBatches == 0)
            {
                CHECK(result.wordsMismatched == 0);
            }
        }

        // Stops a service with SIGTERM; its final figures are on the "stopping:" line.
        std::string stop(ServiceProcess& service)
        {
            service.signal(SIGTERM);
            CHECK(service.wait(std::chrono::seconds{5}) == std::optional<int>{0});
            return service.output();
        }

        // Stops the initiator; `window`, a check of `verifier`, must have verified `wanted` samples, and every sample the
        // verifier saw must be there or in a batch the initiator reported lost after the first `lostBefore`. Returns the
        // initiator's output.
        std::string stopAndAccount(ServiceProcess& initiator, SampleChecker const& verifier, SampleCounts const& window,
                                   std::uint64_t wanted, std::uint64_t lostBefore, std::size_t batchSamples)
        {
            auto const initiatorOutput = stop(initiator);
            INFO("initiator:\n", initiatorOutput);
            REQUIRE(window.verified >= wanted);
            auto const lost = lastFigure(initiatorOutput, "lost");
            REQUIRE(lost);
            checkNoSilentLoss(verifier.totals(), *lost - std::min(*lost, lostBefore), batchSamples);
            return initiatorOutput;
        }

        void moveAudio(bool sharedMemory)
        {
            AudioPair pair{sharedMemory};
            NotifySocket targetNotify;
            ServiceProcess target{pair.target(), notifyEnvironment(targetNotify)};
            REQUIRE_MESSAGE(targetNotify.waitFor("READY=1", std::chrono::seconds{10}), target.output());
            // The ticket carries the bounce buffer initiators write batches into, as the library made it.
            CHECK(readFile(pair.directories.ticketFile()).find("\"bounceBufferInfo\"") != std::string::npos);
            SampleChecker verifier{pair.directories.destination.path().string(), serviceAudioFlowId, seed};

            NotifySocket initiatorNotify;
            ServiceProcess initiator{pair.initiator(), notifyEnvironment(initiatorNotify)};
            REQUIRE_MESSAGE(initiatorNotify.waitFor("READY=1", std::chrono::seconds{10}), initiator.output());
            auto const wanted = 4 * samplesPerSecond;
            auto const result = verifier.check(wanted, std::chrono::seconds{20});
            MESSAGE((sharedMemory ? "shm" : "tcp") << ": " << result.verified << " samples verified, " << result.mismatched
                                                   << " mismatched, " << result.gone << " overrun by the checker");
            auto const targetStatus = targetNotify.waitFor("samples=", std::chrono::seconds{2});
            CHECK(targetStatus);
            auto const initiatorOutput = stop(initiator);
            auto const targetOutput = stop(target);
            INFO("initiator:\n", initiatorOutput, "\ntarget:\n", targetOutput);
            auto const lost = lastFigure(initiatorOutput, "lost");
            REQUIRE(lost);
            REQUIRE(result.verified >= wanted);
            checkNoSilentLoss(result, *lost, pair.source.batchSamples());
            // Both ends counted samples; the target at least those verified through it.
            auto const targetSamples = lastFigure(targetOutput, "samples");
            REQUIRE(targetSamples);
            CHECK(*targetSamples >= wanted);
            auto const initiatorSamples = lastFigure(initiatorOutput, "samples");
            REQUIRE(initiatorSamples);
            CHECK(*initiatorSamples >= *targetSamples);
            CHECK(pair.source.refused() == 0);
        }
    }

    TEST_CASE("audio: 2 channels of 48 kHz float32 moved over tcp, every sample checked at the target")
    {
        moveAudio(false);
    }

    TEST_CASE("audio: 2 channels of 48 kHz float32 moved over shm, every sample checked at the target")
    {
        moveAudio(true);
    }

    TEST_CASE("audio: a target whose bounce-buffer entries are shorter than the source's batches is dropped once, not retried")
    {
        AudioPair pair{false};
        // 5 ms entries at the target, 10 ms batches (the default commit hint) at the source.
        auto const options = pair.directories.tickets.path() / "short-entries.json";
        std::ofstream{options} << R"({"maxCommitBatchSizeHint": 240, "maxSyncBatchSizeHint": 240})" << '\n';
        auto settings = pair.target();
        settings.emplace_back("flow_options", options.string());
        ReadyService target{settings};
        NotifySocket initiatorNotify;
        ServiceProcess initiator{pair.initiator(), notifyEnvironment(initiatorNotify)};
        auto const report = initiator.waitForLine("does not fit flow", std::chrono::seconds{10});
        REQUIRE_MESSAGE(report, initiator.output());
        CHECK(report->find("maxSyncBatchSizeHint of at least 480") != std::string::npos);
        CHECK(initiatorNotify.waitFor("STATUS=state=stale", std::chrono::seconds{2}));
        // Still running and fetching, and the same ticket is not tried again.
        std::this_thread::sleep_for(std::chrono::seconds{1});
        CHECK_FALSE(initiator.wait(std::chrono::milliseconds{0}));
        auto const output = stop(initiator);
        INFO(output);
        CHECK(output.find("does not fit flow") == output.rfind("does not fit flow"));
        CHECK(output.find("re-establishing") == std::string::npos);
        stop(target);
    }

    TEST_CASE("audio: target killed with SIGKILL and restarted: samples arrive again within 5 s, on the new epoch")
    {
        AudioPair pair{false};
        NotifySocket targetNotify;
        auto first = std::make_unique<ServiceProcess>(pair.target(), notifyEnvironment(targetNotify));
        REQUIRE(targetNotify.waitFor("READY=1", std::chrono::seconds{10}));
        auto const firstEpoch = ticketEpoch(pair.directories.ticketFile());
        ReadyService initiator{pair.initiator()};
        {
            SampleChecker verifier{pair.directories.destination.path().string(), serviceAudioFlowId, seed};
            auto const before = verifier.check(samplesPerSecond, std::chrono::seconds{10});
            REQUIRE_MESSAGE(before.verified >= samplesPerSecond, initiator.output());
        }

        first->signal(SIGKILL);
        REQUIRE(first->wait(std::chrono::seconds{5}));
        first.reset();
        ReadyService restarted{pair.target()};
        auto const restartedAt = Clock::now();
        auto const secondEpoch = ticketEpoch(pair.directories.ticketFile());
        CHECK(secondEpoch != 0);
        CHECK(secondEpoch != firstEpoch);

        // Checking starts with the first batch the restarted target committed.
        SampleChecker verifier{pair.directories.destination.path().string(), serviceAudioFlowId, seed};
        auto const again = verifier.check(samplesPerSecond / 10, std::chrono::seconds{5});
        auto const recovery = std::chrono::duration<double>(Clock::now() - restartedAt).count();
        INFO("samples moved again ", recovery, " s after the new target was ready");
        REQUIRE_MESSAGE(again.verified >= samplesPerSecond / 10, initiator.output());
        CHECK(recovery < 5.0);
        auto const lostBeforeRecovery = initiatorLostSoFar(pair.directories, serviceAudioFlowId);
        CHECK(initiator.output().find(fmt::format("new epoch {}", secondEpoch)) != std::string::npos);
        CHECK_FALSE(initiator.wait(std::chrono::milliseconds{0}));
        auto const steady = verifier.check(2 * samplesPerSecond, std::chrono::seconds{10});
        // Batches lost to the kill were reported before the new epoch; after it, every sample must be there or reported.
        stopAndAccount(initiator, verifier, steady, 2 * samplesPerSecond, lostBeforeRecovery, pair.source.batchSamples());
        stop(restarted);
    }

    TEST_CASE("audio: a ticket of a new epoch whose target refuses connections leaves the working target receiving every sample")
    {
        AudioPair pair{false};
        ReadyService target{pair.target()};
        auto const working = readFile(pair.directories.ticketFile());
        auto const ticket = ownTicketFile(pair.directories, working);
        ReadyService initiator{initiatorSettings(pair.directories, ticket, serviceAudioFlowId)};
        SampleChecker verifier{pair.directories.destination.path().string(), serviceAudioFlowId, seed};
        REQUIRE_MESSAGE(verifier.check(samplesPerSecond / 2, std::chrono::seconds{10}).verified >= samplesPerSecond / 2,
                        initiator.output());

        UnreachableTicket const unreachable{working};
        writeTicketFile(ticket, unreachable.json());
        REQUIRE_MESSAGE(initiator.waitForLine(fmt::format("(epoch {}) gives no connection", unreachable.epoch()), std::chrono::seconds{15}),
                        initiator.output());
        auto const during = verifier.check(2 * samplesPerSecond, std::chrono::seconds{10});
        auto const output = stopAndAccount(initiator, verifier, during, 2 * samplesPerSecond, 0, pair.source.batchSamples());
        CHECK(output.find("re-establishing") == std::string::npos);
        stop(target);
    }
}
