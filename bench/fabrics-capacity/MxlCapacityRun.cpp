// The mxl path of a capacity run: the real tools as processes. Per flow k, mxl-test-source writes the flow in source
// domain k (prerendered: the renderer costs nothing, pacing is unchanged), an mxl-fabrics-demo target creates it in
// target domain k and prints its ticket, and an mxl-fabrics-demo initiator sends it there; a reader thread of this
// process follows each target's flow. Fan-out: one source and one initiator holding a ticket of each of the N targets.
#include "CapacityRun.hpp"
#include "ChildProcess.hpp"
#include "FlowDefinitionCopy.hpp"
#include "InterruptFlag.hpp"
#include "LiveWindow.hpp"
#include "ProcessCpu.hpp"
#include "ScratchDirectory.hpp"
#include "StatsLine.hpp"
#include "TargetFlowReader.hpp"

#include <mxl/time.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <poll.h>
#include <stdexcept>
#include <vector>

namespace mxl::bench::capacity
{
    namespace
    {
        using Clock = std::chrono::steady_clock;

        constexpr auto stopGrace = std::chrono::seconds{5};
        // The tools print a stats line every second; the readers decide on a unit at most `missingAfter` after it.
        constexpr auto closingTimeout = std::chrono::seconds{3} + TargetFlowReader::missingAfter;
        constexpr auto pollInterval = std::chrono::milliseconds{100};

        enum class Phase
        {
            warmup,
            measuring,
            closing
        };

        // A tool process whose stdout is drained, and whose stats lines (those starting with `statsPrefix`, if any)
        // count over the window: from the first line after it opened to the first line after it closed.
        class ToolProcess
        {
        public:
            ToolProcess(std::string name, std::vector<std::string> const& argv, std::filesystem::path const& stderrFile,
                        std::string statsPrefix)
                : _process{std::make_unique<ChildProcess>(std::move(name), argv, stderrFile)}
                , _statsPrefix{std::move(statsPrefix)}
            {
            }

            ChildProcess& process() noexcept
            {
                return *_process;
            }

            void readOutput(Phase phase)
            {
                for (auto const& line : _process->takeLines())
                {
                    auto stats = _statsPrefix.empty() ? std::nullopt : StatsLine::parse(line, _statsPrefix);
                    if (!stats || phase == Phase::warmup)
                    {
                        continue;
                    }
                    if (!_atStart)
                    {
                        _atStart = std::move(stats);
                    }
                    else if (phase == Phase::closing && !_atEnd)
                    {
                        _atEnd = std::move(stats);
                    }
                }
            }

            [[nodiscard]] bool complete() const noexcept
            {
                return _statsPrefix.empty() || _atEnd.has_value();
            }

            // What counter `key` grew by over the window.
            [[nodiscard]] std::uint64_t counted(std::string_view key) const
            {
                if (!_atStart || !_atEnd)
                {
                    throw std::runtime_error{fmt::format("{} printed no '{}' line after the window {}", _process->name(), _statsPrefix,
                                                         _atStart ? "closed" : "opened")};
                }
                return growth(*_atStart, *_atEnd, key);
            }

        private:
            std::unique_ptr<ChildProcess> _process;
            std::string _statsPrefix;
            std::optional<StatsLine> _atStart;
            std::optional<StatsLine> _atEnd;
        };

        // Every process gets SIGTERM at once, then each is waited for: a group stops in the time of its slowest.
        void stopGroup(std::vector<ToolProcess>& group)
        {
            for (auto& tool : group)
            {
                tool.process().terminate();
            }
            for (auto& tool : group)
            {
                tool.process().stop(stopGrace);
            }
        }

        std::vector<pid_t> pidsOf(std::vector<ToolProcess>& group)
        {
            std::vector<pid_t> pids;
            for (auto& tool : group)
            {
                pids.push_back(tool.process().pid());
            }
            return pids;
        }

        class MxlRun
        {
        public:
            MxlRun(RunShape const& shape, ToolPaths const& tools, bool redundant)
                : _shape{shape}
                , _tools{tools}
                , _redundant{redundant}
            {
            }

            ~MxlRun()
            {
                // Readers first (they read the targets' flows), then the ends in the order data flows back from.
                _readers.clear();
                stopGroup(_initiators);
                stopGroup(_targets);
                stopGroup(_sources);
            }

            MxlRun(MxlRun const&) = delete;
            MxlRun& operator=(MxlRun const&) = delete;

            PathResult measure()
            {
                start();
                pump(Phase::warmup, Clock::now() + seconds(_shape.warmupSeconds));

                CpuMeter initiatorCpu{pidsOf(_initiators)};
                CpuMeter targetCpu{pidsOf(_targets)};
                _window.open(::mxlGetTime());
                initiatorCpu.start();
                targetCpu.start();
                auto const windowStart = Clock::now();
                pump(Phase::measuring, windowStart + seconds(_shape.measureSeconds));
                _window.close(::mxlGetTime());
                auto const wallSeconds = std::chrono::duration<double>(Clock::now() - windowStart).count();
                PathResult result;
                result.initiatorCpuPercent = initiatorCpu.percentOfOneCore(wallSeconds) / _shape.flows;
                result.targetCpuPercent = targetCpu.percentOfOneCore(wallSeconds) / _shape.flows;

                awaitWindowEnd();
                countTools(result);
                countReaders(result);
                return result;
            }

        private:
            RunShape _shape;
            ToolPaths _tools;
            bool _redundant;
            ScratchDirectory _scratch{"mxl-fabrics-capacity"};
            LiveWindow _window;
            std::vector<ToolProcess> _sources;
            std::vector<ToolProcess> _targets;
            std::vector<ToolProcess> _initiators;
            std::vector<std::unique_ptr<TargetFlowReader>> _readers;

            static Clock::duration seconds(double value)
            {
                return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>{value});
            }

            // Sources, then targets (their tickets), then initiators (connected), then the readers.
            void start()
            {
                auto const definition = std::filesystem::path{_tools.flowsDirectory} / _shape.format.definitionFile;
                auto const sourceCount = _shape.fanOut ? 1U : _shape.flows;
                std::vector<std::string> flowIds;
                std::vector<std::string> sourceDomains;
                for (std::uint32_t k = 1; k <= sourceCount; ++k)
                {
                    auto const copy = _scratch.path() / fmt::format("flow-{}.json", k);
                    flowIds.push_back(writeFlowCopy(definition, copy));
                    sourceDomains.push_back(_scratch.subdirectory(fmt::format("source-{}", k)).string());
                    auto& source =
                        _sources.emplace_back(fmt::format("flow {} mxl-test-source", k),
                                              std::vector<std::string>{_tools.testSource, "-d", sourceDomains.back(),
                                                                       _shape.format.audio ? "-a" : "-v", copy.string(), "--prerendered"},
                                              _scratch.path() / fmt::format("source-{}.stderr", k), "stats ");
                    source.process().awaitLine(fmt::format("flow {}", flowIds.back()), runStartTimeout);
                }

                std::vector<std::vector<std::string>> ticketsOfSource(sourceCount);
                std::vector<std::string> targetDomains;
                for (std::uint32_t t = 1; t <= _shape.flows; ++t)
                {
                    auto const k = _shape.fanOut ? 1U : t;
                    targetDomains.push_back(_scratch.subdirectory(fmt::format("target-{}", t)).string());
                    std::vector<std::string> argv{
                        _tools.demo,    "-d", targetDomains.back(), "-f", (_scratch.path() / fmt::format("flow-{}.json", k)).string(), "-p",
                        _shape.provider};
                    auto const tcp = _shape.provider == "tcp";
                    if (_redundant)
                    {
                        // Two loopback paths that differ in more than the port: IPv4 and IPv6 (tcp), or two endpoints (shm).
                        argv.insert(argv.end(), {"--path", tcp ? "127.0.0.1" : "a", "--path", tcp ? "::1" : "b"});
                    }
                    else if (tcp)
                    {
                        argv.insert(argv.end(), {"-n", "127.0.0.1"});
                    }
                    if (tcp)
                    {
                        // Port 0: each target (each path) listens on a free port of its own, which its ticket carries.
                        argv.insert(argv.end(), {"-s", "0"});
                    }
                    auto& target = _targets.emplace_back(fmt::format("target {} (mxl-fabrics-demo)", t), argv,
                                                         _scratch.path() / fmt::format("target-{}.stderr", t), "");
                    constexpr std::string_view ticketPrefix{"Target info: "};
                    // One ticket per path, path 1 first.
                    for (auto path = 0; path < (_redundant ? 2 : 1); ++path)
                    {
                        ticketsOfSource[k - 1].push_back(
                            target.process().awaitLine(ticketPrefix, runStartTimeout).substr(ticketPrefix.size()));
                    }
                }

                for (std::uint32_t k = 1; k <= sourceCount; ++k)
                {
                    std::vector<std::string> argv{_tools.demo, "-i", "-d", sourceDomains[k - 1], "-f", flowIds[k - 1]};
                    for (auto const& ticket : ticketsOfSource[k - 1])
                    {
                        argv.insert(argv.end(), {"-t", ticket});
                    }
                    auto& initiator = _initiators.emplace_back(fmt::format("initiator {} (mxl-fabrics-demo -i)", k), argv,
                                                               _scratch.path() / fmt::format("initiator-{}.stderr", k), "stats: ");
                    initiator.process().awaitLine("connected to ", runStartTimeout);
                }

                for (std::uint32_t t = 1; t <= _shape.flows; ++t)
                {
                    auto const k = _shape.fanOut ? 1U : t;
                    _readers.push_back(std::make_unique<TargetFlowReader>(fmt::format("the reader of target {}", t), targetDomains[t - 1],
                                                                          flowIds[k - 1], _window));
                }
            }

            // Drains every tool's stdout and checks that every child and reader still runs, until `until`.
            void pump(Phase phase, Clock::time_point until)
            {
                while (Clock::now() < until)
                {
                    pumpOnce(phase, until);
                }
            }

            // After the window: until every followed tool printed its closing stats line and every reader passed the end.
            void awaitWindowEnd()
            {
                auto const deadline = Clock::now() + closingTimeout;
                for (;;)
                {
                    pumpOnce(Phase::closing, deadline);
                    auto const toolsDone =
                        std::ranges::all_of(_sources, &ToolProcess::complete) && std::ranges::all_of(_initiators, &ToolProcess::complete);
                    auto const readersDone = std::ranges::all_of(_readers, [](auto const& reader) { return reader->finished(); });
                    if (toolsDone && readersDone)
                    {
                        return;
                    }
                    if (Clock::now() > deadline)
                    {
                        throw std::runtime_error{fmt::format("{} not done {} s after the window closed",
                                                             toolsDone ? "the target readers were" : "the tools' stats lines were",
                                                             std::chrono::duration_cast<std::chrono::seconds>(closingTimeout).count())};
                    }
                }
            }

            void pumpOnce(Phase phase, Clock::time_point until)
            {
                throwIfInterrupted();
                std::vector<pollfd> outputs;
                for (auto* group : {&_sources, &_targets, &_initiators})
                {
                    for (auto& tool : *group)
                    {
                        tool.readOutput(phase);
                        tool.process().requireRunning();
                        outputs.push_back({tool.process().stdoutFd(), POLLIN, 0});
                    }
                }
                for (auto const& reader : _readers)
                {
                    // Before the window closes, a finished reader is a failed one: finish() throws its reason.
                    if (phase != Phase::closing && reader->finished())
                    {
                        reader->finish();
                    }
                }
                auto const left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
                auto const wait = std::clamp(left, std::chrono::milliseconds{0}, pollInterval);
                ::poll(outputs.data(), outputs.size(), static_cast<int>(wait.count()));
            }

            // Source: late + invalid (grains written after their time); initiator: late (jumps over a source that ran
            // ahead of it) and lost + skipped + invalidated (grains that did not reach a target valid).
            void countTools(PathResult& result) const
            {
                for (auto const& source : _sources)
                {
                    result.late += source.counted("late") + source.counted("invalid");
                }
                for (auto const& initiator : _initiators)
                {
                    result.late += initiator.counted("late");
                    result.lost += initiator.counted("lost") + initiator.counted("skipped") + initiator.counted("invalidated");
                }
            }

            void countReaders(PathResult& result)
            {
                std::vector<std::uint64_t> latencies;
                for (auto const& reader : _readers)
                {
                    auto counts = reader->finish();
                    result.arrived += counts.arrived;
                    result.lost += counts.missing + counts.invalid;
                    latencies.insert(latencies.end(), counts.latenciesNs.begin(), counts.latenciesNs.end());
                }
                result.latency = percentiles(std::move(latencies));
            }
        };
    }

    PathResult runMxlCapacity(RunShape const& shape, ToolPaths const& tools, bool redundant)
    {
        MxlRun run{shape, tools, redundant};
        return run.measure();
    }
}
