// The target's counters over its whole life: an initiator stopped for longer than the target's stall timeout, while its
// source goes on, makes the target rebuild, and the grains it never got across the rebuild are lost; a target whose flow
// is deleted under it starts afresh with its counts going on. The counts in its status file never fall. A second
// initiator on the same ticket is named in a warning and counted.
#include "RawHttp.hpp"
#include "ServiceScenario.hpp"
#include "TestFlow.hpp"

#include <client/ServiceStatusFile.hpp>
#include <common/FlowPaths.hpp>

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>

namespace mxl::test
{
    namespace
    {
        using namespace std::chrono_literals;
        using Clock = std::chrono::steady_clock;

        // Reads the target's status file every 20 ms: the newest value of counter `name`, and whether it ever fell.
        class CounterWatch
        {
        public:
            CounterWatch(ServiceDirectories const& directories, ReadyService const& target, std::string name)
                : _path{client::serviceStatusPath(directories.destination.path(), "target", serviceTestFlowId, target.pid())}
                , _name{std::move(name)}
                , _thread{[this](std::stop_token const& stop) { watch(stop); }}
            {
            }

            [[nodiscard]] std::uint64_t latest() const noexcept
            {
                return _latest.load();
            }

            [[nodiscard]] bool fell() const noexcept
            {
                return _fell.load();
            }

            // Waits until the count reached `atLeast`; the count then, or the last one read.
            std::uint64_t waitFor(std::uint64_t atLeast, std::chrono::milliseconds timeout) const
            {
                auto const deadline = Clock::now() + timeout;
                while (latest() < atLeast && Clock::now() < deadline)
                {
                    std::this_thread::sleep_for(20ms);
                }
                return latest();
            }

        private:
            std::filesystem::path _path;
            std::string _name;
            std::atomic<std::uint64_t> _latest{0};
            std::atomic<bool> _fell{false};
            std::jthread _thread;

            void watch(std::stop_token const& stop)
            {
                while (!stop.stop_requested())
                {
                    std::ifstream file{_path};
                    auto const status = nlohmann::json::parse(file, nullptr, false);
                    if (status.is_object() && status.contains(_name) && status[_name].is_number_unsigned())
                    {
                        auto const value = status[_name].get<std::uint64_t>();
                        if (value < _latest.load())
                        {
                            _fell = true;
                        }
                        _latest = value;
                    }
                    std::this_thread::sleep_for(20ms);
                }
            }
        };

        // A target and an initiator moving the grains of a source the test writes.
        struct MovingPair
        {
            ServiceDirectories directories;
            PatternSource source{directories.source.path(), serviceTestFlow()};
            ReadyService target{targetSettings(directories)};
            ReadyService initiator{initiatorSettings(directories, directories.ticketFile())};

            MovingPair()
            {
                FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
                requireFlowing(verifier, 20, 10s, [&] { return initiator.output(); });
            }
        };
    }

    TEST_CASE("an initiator stopped past the target's stall timeout while its source goes on: the target counts the grains it never "
              "got across its rebuild as lost, and its count never falls")
    {
        MovingPair pair;
        auto& [directories, source, target, initiator] = pair;
        FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
        CounterWatch lost{directories, target, "lost"};

        initiator.signal(SIGSTOP);
        auto const stoppedAt = Clock::now();
        // The target's stall timeout is 2 s; the initiator stays stopped a second longer than the rebuild it brings.
        REQUIRE_MESSAGE(target.waitForLine("stalled: the flow's head", 15s), target.output());
        auto const newestBefore = verifier.headIndex();
        std::this_thread::sleep_for(1s);
        auto const lostBefore = lost.latest();
        initiator.signal(SIGCONT);
        auto const stoppedSeconds = std::chrono::duration<double>(Clock::now() - stoppedAt).count();

        // The source went on at 50 grains a second while the initiator was stopped.
        auto const missedAtLeast = static_cast<std::uint64_t>(50 * stoppedSeconds * 0.8);
        auto const lostAfter = lost.waitFor(lostBefore + missedAtLeast, 20s);
        INFO("stopped ", stoppedSeconds, " s; lost ", lostBefore, " before the rebuild, ", lostAfter, " after");
        CHECK(lostAfter - lostBefore >= missedAtLeast);

        // The indices the target names are the ones after the newest it had, which the source did write.
        auto const line = target.waitForLine("since the target was rebuilt", 10s);
        REQUIRE_MESSAGE(line, (target.output() + "\ninitiator:\n" + initiator.output()));
        INFO(*line);
        std::uint64_t firstMissing = 0;
        std::uint64_t lastMissing = 0;
        REQUIRE(std::sscanf(line->substr(line->find("indices ")).c_str(), "indices %lu to %lu never arrived", &firstMissing,
                            &lastMissing) == 2);
        CHECK(firstMissing == newestBefore + 1);
        std::uint64_t written = 0;
        for (auto index = firstMissing; index <= lastMissing; ++index)
        {
            written += source.checksum(index) ? 1 : 0;
        }
        INFO("the source wrote ", written, " grains of indices ", firstMissing, " to ", lastMissing);
        CHECK(written >= missedAtLeast);
        CHECK(lost.waitFor(lostBefore + written, 10s) - lostBefore >= written);
        requireFlowing(verifier, 20, 10s, [&] { return target.output(); });
        CHECK_FALSE(lost.fell());
    }

    TEST_CASE("a target whose flow is deleted under it starts afresh with its counts going on: grains and reconnects never fall")
    {
        MovingPair pair;
        auto& [directories, source, target, initiator] = pair;
        CounterWatch grains{directories, target, "grains"};
        CounterWatch reconnects{directories, target, "reconnects"};
        auto const before = grains.waitFor(20, 10s);
        REQUIRE(before >= 20);

        std::filesystem::remove_all(paths::flowDirectory(directories.destination.path(), serviceTestFlowId));
        REQUIRE(target.waitForLine("starting afresh", 10s));
        REQUIRE(target.waitForLine("ready: waiting for an initiator", 10s));
        FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
        requireFlowing(verifier, 20, 15s, [&] { return target.output(); });
        // The grains of the new flow count on from those of the old one.
        auto const after = grains.waitFor(before + 20, 10s);
        INFO("grains ", before, " before the flow was deleted, ", after, " after");
        CHECK(after >= before + 20);
        CHECK_FALSE(grains.fell());
        CHECK_FALSE(reconnects.fell());
    }

    TEST_CASE("a second initiator connected to a target while the first is: the target warns naming both, and counts it in its status "
              "file and /metrics")
    {
        MovingPair pair;
        auto& [directories, source, target, initiator] = pair;
        auto const port = target.httpPort();
        REQUIRE(port != 0);
        CounterWatch concurrent{directories, target, "concurrent_initiators"};
        // The same ticket followed from another domain's copy of the flow.
        TempDomain secondDomain{"svc-second-source"};
        PatternSource secondSource{secondDomain.path(), serviceTestFlow()};
        ReadyService second{with(initiatorSettings(directories, directories.ticketFile()), "domain", secondDomain.str())};

        auto const line = target.waitForLine("a second initiator connected", 15s);
        REQUIRE_MESSAGE(line, (target.output() + "\nsecond initiator:\n" + second.output()));
        INFO(*line);
        // Both initiators by address and port: on one host, the port tells them apart.
        static std::regex const peers{R"(connection \d+ from (\S+:\d+)\).* connection \d+ from (\S+:\d+) is up)"};
        std::smatch named;
        REQUIRE(std::regex_search(*line, named, peers));
        CHECK(named[1].str() != named[2].str());
        CHECK(concurrent.waitFor(1, 10s) == 1);
        static std::regex const metric{R"(\nmxl_initiators_concurrent_total\{[^}]*\} (\d+))"};
        std::smatch match;
        auto const metrics = rawExchange(port, rawRequest("GET", "/metrics")).body;
        REQUIRE(std::regex_search(metrics, match, metric));
        CHECK(match[1].str() == "1");
    }
}
