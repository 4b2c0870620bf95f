// The raw path of a capacity run: N paced streams of plain libfabric with the provider and endpoint type the library
// uses, through the raw transport of mxl-fabrics-bench (bench/fabrics/RawRmaTransport.cpp: one fi_writemsg of header +
// payload with FI_DELIVERY_COMPLETE | FI_REMOTE_CQ_DATA per unit). Each stream is a target process and an initiator
// process forked from the bench (fan-out: one initiator process holding a connection to each of the N targets).
//
// The initiator sleeps until unit i's timestamp on the TAI clock, rings the target's doorbell (the index, in fork-shared
// memory), posts the unit and polls its completion queue until the write completed, as the demo initiator keeps one grain
// in flight; a unit posted more than half a unit period after its timestamp is late. The target waits for the doorbell,
// then polls its completion queue until the unit is there, and records its arrival; a unit of the window that never
// arrived is lost. Latency: arrival on the TAI clock minus the unit's timestamp. Both ends wait with the library's
// pacing (WaitPacer.hpp): raw libfabric 1.17 has no completion wait that both providers honour, and the raw transport's
// read spins, so the doorbell keeps the target from spinning between units.
#include "CapacityRun.hpp"
#include "ChildProcess.hpp"
#include "InterruptFlag.hpp"
#include "LiveWindow.hpp"
#include "ProcessCpu.hpp"
#include "SharedArena.hpp"
#include "SharedTicket.hpp"
#include "TargetFlowReader.hpp"
#include "Transport.hpp"
#include "WaitPacer.hpp"

#include <mxl/time.h>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <new>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <vector>

namespace mxl::bench::capacity
{
    namespace
    {
        using Clock = std::chrono::steady_clock;

        constexpr std::uint32_t maxStreams = 64;
        constexpr std::size_t ticketCapacity = 4096;
        constexpr std::size_t errorCapacity = 512;
        constexpr auto stopTimeout = std::chrono::seconds{5};
        constexpr auto monitorInterval = std::chrono::milliseconds{50};
        // A write that has not completed in this time means the other end is gone.
        constexpr std::uint64_t completionTimeoutNs = 5'000'000'000;
        // The CQ holds one more entry than the one write in flight; the ring is the raw bench's smallest.
        constexpr std::uint32_t completionQueueDepth = 2;
        constexpr std::uint32_t ringSlots = 4;

        enum class Stage : std::uint32_t
        {
            running,
            // The initiators stop posting; the targets keep their endpoints open until every initiator has gone.
            initiatorsStop,
            targetsStop,
        };

        struct StreamShared
        {
            SharedTicket<ticketCapacity> ticket;
            std::atomic<std::uint32_t> initiatorConnected;
            // The doorbell: the newest unit the initiator posted to this stream's target (0: none yet).
            std::atomic<std::uint64_t> postedIndex;
            // Units of the window the initiator posted late (fan-out: on stream 0 only).
            std::atomic<std::uint64_t> late;
            char targetError[errorCapacity];
            char initiatorError[errorCapacity];
        };

        struct RawShared
        {
            LiveWindow window;
            std::atomic<Stage> stage{Stage::running};
            StreamShared streams[maxStreams];
        };

        void keepError(char (&destination)[errorCapacity], std::exception const& error)
        {
            std::snprintf(destination, errorCapacity, "%s", error.what());
        }

        TransportConfig transportConfig(RunShape const& shape)
        {
            return {shape.provider, shape.format.rawUnit, completionQueueDepth, ringSlots, {}, {}};
        }

        class RawRun
        {
        public:
            explicit RawRun(RunShape const& shape)
                : _shape{shape}
                , _rate{shape.format.unitRate}
                , _capacity{static_cast<std::size_t>(std::ceil((shape.measureSeconds + 1.0) * 1e9 / unitPeriodNs(shape.format))) + 16}
                , _sharedArena{sizeof(RawShared)}
                , _arrivalArena{sizeof(std::uint64_t) * _capacity * shape.flows}
                , _shared{*::new (_sharedArena.as<unsigned char>()) RawShared{}}
                , _arrivals{_arrivalArena.as<std::uint64_t>()}
            {
                if (shape.flows > maxStreams)
                {
                    throw std::runtime_error{fmt::format("{} raw streams requested; at most {} are supported", shape.flows, maxStreams)};
                }
            }

            ~RawRun()
            {
                // Initiators first: a target that closed its endpoint under a writing initiator would fail it.
                _shared.stage.store(Stage::initiatorsStop, std::memory_order_release);
                awaitEnd(_initiators);
                _shared.stage.store(Stage::targetsStop, std::memory_order_release);
                awaitEnd(_targets);
            }

            RawRun(RawRun const&) = delete;
            RawRun& operator=(RawRun const&) = delete;

            PathResult measure()
            {
                start();
                monitorFor(_shape.warmupSeconds);

                CpuMeter initiatorCpu{pidsOf(_initiators)};
                CpuMeter targetCpu{pidsOf(_targets)};
                _shared.window.open(::mxlGetTime());
                initiatorCpu.start();
                targetCpu.start();
                auto const windowStart = Clock::now();
                monitorFor(_shape.measureSeconds);
                _shared.window.close(::mxlGetTime());
                auto const wallSeconds = std::chrono::duration<double>(Clock::now() - windowStart).count();
                PathResult result;
                result.initiatorCpuPercent = initiatorCpu.percentOfOneCore(wallSeconds) / _shape.flows;
                result.targetCpuPercent = targetCpu.percentOfOneCore(wallSeconds) / _shape.flows;

                // The last units of the window get as long to arrive as the mxl path's readers give them.
                monitorFor(std::chrono::duration<double>{TargetFlowReader::missingAfter}.count() + unitPeriodNs(_shape.format) / 1e9);
                tally(result);
                return result;
            }

        private:
            RunShape _shape;
            mxlRational _rate;
            // Units per stream the arrival table holds: the window's, with room to spare.
            std::size_t _capacity;
            SharedArena _sharedArena;
            SharedArena _arrivalArena;
            RawShared& _shared;
            // Per stream, per unit of the window: 0 not arrived, else its latency in ns + 1.
            std::uint64_t* _arrivals;
            std::vector<std::unique_ptr<ChildProcess>> _targets;
            std::vector<std::unique_ptr<ChildProcess>> _initiators;

            void start()
            {
                for (std::uint32_t stream = 0; stream < _shape.flows; ++stream)
                {
                    _targets.push_back(std::make_unique<ChildProcess>(fmt::format("raw target {}", stream + 1),
                                                                      [this, stream] { return runTarget(stream); }));
                }
                awaitStreams(
                    _shape.flows, [](StreamShared const& s) { return s.ticket.published(); }, "publish its ticket");
                if (_shape.fanOut)
                {
                    std::vector<std::uint32_t> all(_shape.flows);
                    std::iota(all.begin(), all.end(), 0U);
                    _initiators.push_back(
                        std::make_unique<ChildProcess>("raw fan-out initiator", [this, all] { return runInitiator(all); }));
                }
                else
                {
                    for (std::uint32_t stream = 0; stream < _shape.flows; ++stream)
                    {
                        _initiators.push_back(std::make_unique<ChildProcess>(fmt::format("raw initiator {}", stream + 1),
                                                                             [this, stream] { return runInitiator({stream}); }));
                    }
                }
                // An initiator reports on the first stream it serves.
                awaitStreams(
                    static_cast<std::uint32_t>(_initiators.size()),
                    [](StreamShared const& s) { return s.initiatorConnected.load(std::memory_order_acquire) != 0; }, "connect");
            }

            // Until `ready` holds for streams [0, count).
            template <typename Ready>
            void awaitStreams(std::uint32_t count, Ready const& ready, char const* what)
            {
                auto const deadline = Clock::now() + runStartTimeout;
                for (std::uint32_t stream = 0; stream < count; ++stream)
                {
                    while (!ready(_shared.streams[stream]))
                    {
                        monitorOnce();
                        if (Clock::now() > deadline)
                        {
                            throw std::runtime_error{
                                fmt::format("raw stream {} did not {} within {} s", stream + 1, what,
                                            std::chrono::duration_cast<std::chrono::seconds>(runStartTimeout).count())};
                        }
                    }
                }
            }

            void monitorFor(double seconds)
            {
                auto const until = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>{seconds});
                while (Clock::now() < until)
                {
                    monitorOnce();
                }
            }

            // Throws when a signal arrived or a child has ended, with what the child reported.
            void monitorOnce()
            {
                throwIfInterrupted();
                for (std::uint32_t stream = 0; stream < _targets.size(); ++stream)
                {
                    requireRunning(*_targets[stream], _shared.streams[stream].targetError);
                }
                for (std::uint32_t initiator = 0; initiator < _initiators.size(); ++initiator)
                {
                    requireRunning(*_initiators[initiator], _shared.streams[initiator].initiatorError);
                }
                std::this_thread::sleep_for(monitorInterval);
            }

            static void requireRunning(ChildProcess& child, char const* error)
            {
                if (child.ended())
                {
                    throw std::runtime_error{fmt::format("{} ended: {}", child.name(), error[0] != '\0' ? error : child.stop({}))};
                }
            }

            static std::vector<pid_t> pidsOf(std::vector<std::unique_ptr<ChildProcess>> const& children)
            {
                std::vector<pid_t> pids;
                for (auto const& child : children)
                {
                    pids.push_back(child->pid());
                }
                return pids;
            }

            // Children leave by the stage flag; what is still running after the timeout gets SIGTERM, then SIGKILL.
            static void awaitEnd(std::vector<std::unique_ptr<ChildProcess>>& children)
            {
                auto const deadline = Clock::now() + stopTimeout;
                while (Clock::now() < deadline && !std::ranges::all_of(children, [](auto const& child) { return child->ended(); }))
                {
                    std::this_thread::sleep_for(std::chrono::milliseconds{10});
                }
                for (auto const& child : children)
                {
                    child->stop(stopTimeout);
                }
            }

            [[nodiscard]] std::uint64_t* arrivalsOf(std::uint32_t stream) const noexcept
            {
                return _arrivals + std::size_t{stream} * _capacity;
            }

            // In the target's process.
            int runTarget(std::uint32_t stream)
            {
                auto& shared = _shared.streams[stream];
                try
                {
                    auto const target = makeRawTarget(transportConfig(_shape));
                    shared.ticket.publish(target->ticket());
                    receive(*target, stream);
                    return 0;
                }
                catch (std::exception const& e)
                {
                    // Once the initiators are stopping, their going away is no failure of the target.
                    if (_shared.stage.load(std::memory_order_acquire) != Stage::running)
                    {
                        return 0;
                    }
                    keepError(shared.targetError, e);
                    return 1;
                }
            }

            void receive(TargetTransport& target, std::uint32_t stream)
            {
                auto const& doorbell = _shared.streams[stream].postedIndex;
                auto* const arrivals = arrivalsOf(stream);
                std::uint64_t lastIndex = 0;
                // The first read also accepts the connection (tcp), which the initiator waits for before it posts.
                bool accepted = false;
                WaitPacer pacer;
                while (_shared.stage.load(std::memory_order_acquire) != Stage::targetsStop && !interrupted())
                {
                    if (accepted && doorbell.load(std::memory_order_acquire) <= lastIndex)
                    {
                        pacer.pause();
                        continue;
                    }
                    pacer.reset();
                    accepted = true;
                    auto const index = target.readGrain();
                    if (!index)
                    {
                        continue;
                    }
                    auto const arrivalNs = ::mxlGetTime();
                    auto const dueNs = ::mxlIndexToTimestamp(&_rate, *index);
                    if (_shared.window.contains(dueNs))
                    {
                        auto const slot = *index - firstIndexAtOrAfter(_rate, _shared.window.startNs());
                        if (slot < _capacity)
                        {
                            arrivals[slot] = (arrivalNs > dueNs ? arrivalNs - dueNs : 0) + 1;
                        }
                    }
                    lastIndex = std::max(lastIndex, *index);
                }
            }

            // In the initiator's process: one end per stream of `streams`, each unit posted to all of them.
            int runInitiator(std::vector<std::uint32_t> const& streams)
            {
                auto& first = _shared.streams[streams.front()];
                try
                {
                    std::vector<std::unique_ptr<InitiatorTransport>> ends;
                    for (auto const stream : streams)
                    {
                        ends.push_back(makeRawInitiator(transportConfig(_shape), _shared.streams[stream].ticket.read()));
                    }
                    first.initiatorConnected.store(1, std::memory_order_release);
                    send(ends, streams);
                    return 0;
                }
                catch (std::exception const& e)
                {
                    keepError(first.initiatorError, e);
                    return 1;
                }
            }

            void send(std::vector<std::unique_ptr<InitiatorTransport>> const& ends, std::vector<std::uint32_t> const& streams)
            {
                auto& counters = _shared.streams[streams.front()];
                auto const halfPeriodNs = static_cast<std::uint64_t>(unitPeriodNs(_shape.format) / 2);
                auto index = ::mxlGetCurrentIndex(&_rate) + 1;
                while (_shared.stage.load(std::memory_order_acquire) == Stage::running && !interrupted())
                {
                    auto const dueNs = ::mxlIndexToTimestamp(&_rate, index);
                    ::mxlSleepUntil(dueNs);
                    for (auto const& end : ends)
                    {
                        end->stage(index);
                    }
                    auto const postedNs = ::mxlGetTime();
                    // The doorbell goes first: a first write on shm completes only once the target's progress has
                    // taken the initiator's connection, so the target must already be polling.
                    for (auto const stream : streams)
                    {
                        _shared.streams[stream].postedIndex.store(index, std::memory_order_release);
                    }
                    for (auto const& end : ends)
                    {
                        post(*end, index);
                    }
                    if (_shared.window.contains(dueNs) && postedNs > dueNs + halfPeriodNs)
                    {
                        counters.late.fetch_add(1, std::memory_order_relaxed);
                    }
                    awaitCompletions(ends, index);
                    ++index;
                }
            }

            // Posts unit `index`, reaping completions while the transport has no room for it.
            void post(InitiatorTransport& end, std::uint64_t index) const
            {
                auto const deadlineNs = ::mxlGetTime() + completionTimeoutNs;
                WaitPacer pacer;
                while (!end.transfer(index))
                {
                    end.progress();
                    requireProgress(deadlineNs, "could not be posted", index);
                    pacer.pause();
                }
            }

            void awaitCompletions(std::vector<std::unique_ptr<InitiatorTransport>> const& ends, std::uint64_t index) const
            {
                auto const deadlineNs = ::mxlGetTime() + completionTimeoutNs;
                WaitPacer pacer;
                for (;;)
                {
                    bool allDone = true;
                    for (auto const& end : ends)
                    {
                        allDone = end->progress() && allDone;
                    }
                    if (allDone)
                    {
                        return;
                    }
                    requireProgress(deadlineNs, "did not complete", index);
                    pacer.pause();
                }
            }

            // Throws when the initiator is to stop, or a write has waited past `deadlineNs`: its peer is gone.
            void requireProgress(std::uint64_t deadlineNs, char const* what, std::uint64_t index) const
            {
                if (interrupted() || _shared.stage.load(std::memory_order_acquire) == Stage::targetsStop)
                {
                    throw std::runtime_error{fmt::format("stopped while unit {} {}", index, what)};
                }
                if (::mxlGetTime() > deadlineNs)
                {
                    throw std::runtime_error{
                        fmt::format("the write of unit {} {} within {} s", index, what, completionTimeoutNs / 1'000'000'000)};
                }
            }

            void tally(PathResult& result) const
            {
                auto const first = firstIndexAtOrAfter(_rate, _shared.window.startNs());
                auto const units = std::min<std::uint64_t>(firstIndexAtOrAfter(_rate, _shared.window.endNs()) - first, _capacity);
                std::vector<std::uint64_t> latencies;
                for (std::uint32_t stream = 0; stream < _shape.flows; ++stream)
                {
                    result.late += _shared.streams[stream].late.load(std::memory_order_acquire);
                    auto const* arrivals = arrivalsOf(stream);
                    for (std::uint64_t unit = 0; unit < units; ++unit)
                    {
                        if (arrivals[unit] == 0)
                        {
                            ++result.lost;
                            continue;
                        }
                        ++result.arrived;
                        latencies.push_back(arrivals[unit] - 1);
                    }
                }
                result.latency = percentiles(std::move(latencies));
            }
        };
    }

    PathResult runRawCapacity(RunShape const& shape)
    {
        RawRun run{shape};
        return run.measure();
    }
}
