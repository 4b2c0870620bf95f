// mxl-fabrics-events-bench: what it costs an application to be told of arrivals by a target's events
// (include/mxl/fabrics_events.h) instead of waiting in ReadGrain. Two tables, each with its baseline from the same run:
// the wake of a thread blocked in poll() on the event descriptor (an emitted event, dispatched to its handler) beside a
// plain futex wake and a raw eventfd wake; and a grain's arrival over tcp loopback seen through events beside the same
// arrival seen by a thread blocked in mxlFabricsTargetReadGrain.
#include <mxl/fabrics.h>
#include <mxl/fabrics_events.h>
#include <mxl/flow.h>

#include "CheckMxlStatus.hpp"
#include "CpuPlacement.hpp"
#include "FabricsInitiator.hpp"
#include "FabricsTarget.hpp"
#include "MxlEnd.hpp"
#include "Percentiles.hpp"
#include "TemporaryDomains.hpp"
#include "WakeBench.hpp"

#include <fmt/format.h>

#include <linux/futex.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace
{
    using mxl::bench::Percentiles;
    using mxl::bench::Placement;

    constexpr char const* flowId = "6c0e3b9a-2f41-4d7e-8a15-9b3c7d2e4f60";
    constexpr std::uint64_t firstGrain = 1000;
    constexpr std::uint32_t wakeType = MXL_FABRICS_EVENT_USER;
    // The arrival rows take turns this many times.
    constexpr int arrivalRounds = 4;

    // A small video flow: the transfer itself stays short, so the wake is a visible part of the arrival.
    std::string flowDefinition()
    {
        return fmt::format(R"({{"id":"{}","format":"urn:x-nmos:format:video","label":"mxl-fabrics-events-bench",)"
                           R"("tags":{{"urn:x-nmos:tag:grouphint/v1.0":["mxl-fabrics-events-bench:Video"]}},)"
                           R"("media_type":"video/v210","grain_rate":{{"numerator":50,"denominator":1}},)"
                           R"("frame_width":320,"frame_height":180,"interlace_mode":"progressive"}})",
                           flowId);
    }

    std::uint64_t clockNs(clockid_t clock)
    {
        timespec now{};
        ::clock_gettime(clock, &now);
        return static_cast<std::uint64_t>(now.tv_sec) * 1'000'000'000ULL + static_cast<std::uint64_t>(now.tv_nsec);
    }

    std::uint64_t monotonicNs()
    {
        return clockNs(CLOCK_MONOTONIC);
    }

    void waitReadable(int fd)
    {
        pollfd entry{fd, POLLIN, 0};
        while (::poll(&entry, 1, -1) < 0)
        {
            if (errno != EINTR)
            {
                throw std::runtime_error{fmt::format("poll failed: {}", std::strerror(errno))};
            }
        }
    }

    // `iterations` wakes of a waiter thread on placement.readerCpu by this thread on placement.writerCpu: the waker waits
    // until the waiter announced sample i and gives it time to fall asleep, stamps, and calls wake(i); the sample is the
    // time from the stamp to the return of block(i).
    Percentiles measureWakes(Placement placement, int iterations, std::function<void(int)> const& block,
                             std::function<void(int)> const& wake)
    {
        std::atomic<int> waitingFor{-1};
        std::atomic<std::uint64_t> stampNs{0};
        std::vector<std::uint64_t> latencies(static_cast<std::size_t>(iterations));
        std::thread waiter{[&]
                           {
                               mxl::bench::pinToCpu(placement.readerCpu);
                               for (int i = 0; i < iterations; ++i)
                               {
                                   waitingFor.store(i, std::memory_order_release);
                                   block(i);
                                   latencies[static_cast<std::size_t>(i)] = monotonicNs() - stampNs.load(std::memory_order_acquire);
                               }
                           }};
        mxl::bench::pinToCpu(placement.writerCpu);
        for (int i = 0; i < iterations; ++i)
        {
            while (waitingFor.load(std::memory_order_acquire) != i)
            {
                std::this_thread::yield();
            }
            std::this_thread::sleep_for(std::chrono::microseconds{300});
            stampNs.store(monotonicNs(), std::memory_order_release);
            wake(i);
        }
        waiter.join();
        return mxl::bench::percentiles(std::move(latencies));
    }

    Percentiles futexWakes(Placement placement, int iterations)
    {
        std::atomic<std::uint32_t> word{0};
        auto* const address = reinterpret_cast<std::uint32_t*>(&word);
        return measureWakes(
            placement, iterations,
            [&](int i)
            {
                for (auto seen = word.load(std::memory_order_acquire); seen != static_cast<std::uint32_t>(i + 1);
                     seen = word.load(std::memory_order_acquire))
                {
                    ::syscall(SYS_futex, address, FUTEX_WAIT_PRIVATE, seen, nullptr, nullptr, 0);
                }
            },
            [&](int i)
            {
                word.store(static_cast<std::uint32_t>(i + 1), std::memory_order_release);
                ::syscall(SYS_futex, address, FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
            });
    }

    Percentiles eventfdWakes(Placement placement, int iterations)
    {
        auto const fd = ::eventfd(0, EFD_CLOEXEC);
        if (fd < 0)
        {
            throw std::runtime_error{fmt::format("eventfd failed: {}", std::strerror(errno))};
        }
        auto const result = measureWakes(
            placement, iterations,
            [&](int)
            {
                waitReadable(fd);
                std::uint64_t count = 0;
                if (::read(fd, &count, sizeof(count)) != static_cast<ssize_t>(sizeof(count)))
                {
                    throw std::runtime_error{fmt::format("reading the eventfd failed: {}", std::strerror(errno))};
                }
            },
            [&](int)
            {
                std::uint64_t const one = 1;
                if (::write(fd, &one, sizeof(one)) != static_cast<ssize_t>(sizeof(one)))
                {
                    throw std::runtime_error{fmt::format("writing the eventfd failed: {}", std::strerror(errno))};
                }
            });
        ::close(fd);
        return result;
    }

    void ignoreEvent(mxlFabricsTarget, mxlFabricsEvent const*, void*) {}

    // An idle tcp target's events: the waker emits a user event, the waiter polls the descriptor and dispatches it.
    Percentiles eventWakes(mxlFabricsTarget target, int fd, Placement placement, int iterations)
    {
        mxl::bench::checkMxlStatus(mxlFabricsTargetSetEventHandler(target, wakeType, &ignoreEvent, nullptr),
                                   "mxlFabricsTargetSetEventHandler");
        return measureWakes(
            placement, iterations,
            [&](int)
            {
                waitReadable(fd);
                std::size_t dispatched = 0;
                mxl::bench::checkMxlStatus(mxlFabricsTargetDispatchEvents(target, 0, &dispatched), "mxlFabricsTargetDispatchEvents");
            },
            [&](int)
            {
                mxlFabricsEvent event{};
                event.structSize = sizeof(event);
                event.type = wakeType;
                mxl::bench::checkMxlStatus(mxlFabricsTargetEmitEvent(target, &event), "mxlFabricsTargetEmitEvent");
            });
    }

    // One way of waiting for arrivals, over every round it ran in.
    struct ArrivalRow
    {
        std::vector<std::uint64_t> latenciesNs;
        // CPU of every thread but the sender's (the target side: the application's thread, and the library's thread
        // while events are started), over the sending loops.
        std::uint64_t targetCpuNs = 0;

        [[nodiscard]] double cpuUsPerGrain() const
        {
            return static_cast<double>(targetCpuNs) / 1e3 / static_cast<double>(latenciesNs.size());
        }
    };

    // The two ends of one tcp loopback link in fresh domains, the grains' send times, and the arrival latencies.
    struct ArrivalRun
    {
        mxl::bench::TemporaryDomains domains{"mxl-fabrics-events-bench", 1'000'000'000};
        mxl::bench::MxlEnd targetEnd{domains.target(), flowDefinition(), nullptr};
        mxl::bench::MxlEnd initiatorEnd{domains.initiator(), flowDefinition(), nullptr};
        mxl::bench::FabricsTarget target{targetEnd, "tcp", 64};
        std::vector<std::atomic<std::uint64_t>> sentNs;
        std::vector<std::uint64_t> latencies;
        std::atomic<std::uint64_t> arrived{0};
        std::atomic<bool> stopping{false};

        explicit ArrivalRun(int grains)
            : sentNs(static_cast<std::size_t>(grains))
        {
            latencies.reserve(sentNs.size());
        }

        // On the application's thread, as each grain arrives.
        void record(std::uint64_t index)
        {
            auto const now = monotonicNs();
            latencies.push_back(now - sentNs[index - firstGrain].load(std::memory_order_acquire));
            arrived.fetch_add(1, std::memory_order_release);
        }

        static void onGrain(mxlFabricsTarget, mxlFabricsEvent const* event, void* run)
        {
            if (event->grain.validSlices == event->grain.totalSlices)
            {
                static_cast<ArrivalRun*>(run)->record(event->grain.index);
            }
        }

        // Sends every grain once the application thread (started by the caller) is idle again, and waits for its arrival;
        // adds the latencies and the target side's CPU to `row`.
        void send(ArrivalRow& row)
        {
            mxl::bench::FabricsInitiator initiator{initiatorEnd, flowId, "tcp", std::nullopt, target.ticket()};
            auto const processCpuStart = clockNs(CLOCK_PROCESS_CPUTIME_ID);
            auto const senderCpuStart = clockNs(CLOCK_THREAD_CPUTIME_ID);
            for (std::size_t i = 0; i < sentNs.size(); ++i)
            {
                auto const index = firstGrain + i;
                mxlGrainInfo info{};
                std::uint8_t* payload = nullptr;
                mxl::bench::checkMxlStatus(mxlFlowWriterOpenGrain(initiatorEnd.writer(), index, &info, &payload), "mxlFlowWriterOpenGrain");
                std::memset(payload, static_cast<int>(i & 0xFF), info.grainSize);
                info.validSlices = info.totalSlices;
                mxl::bench::checkMxlStatus(mxlFlowWriterCommitGrain(initiatorEnd.writer(), &info), "mxlFlowWriterCommitGrain");
                // Long enough for the application (and the library thread) to be asleep in their waits again.
                std::this_thread::sleep_for(std::chrono::milliseconds{2});
                sentNs[i].store(monotonicNs(), std::memory_order_release);
                while (!initiator.transferGrain(index, info.totalSlices))
                {
                    initiator.progressBlocking(1);
                }
                while (!initiator.progressBlocking(10))
                {
                }
                // Looked at in short sleeps rather than waited for: a sender asleep on a futex would make the application's
                // thread wake it, a cost of this loop that would be counted as the target side's.
                while (arrived.load(std::memory_order_acquire) < i + 1)
                {
                    std::this_thread::sleep_for(std::chrono::microseconds{50});
                }
            }
            row.targetCpuNs += (clockNs(CLOCK_PROCESS_CPUTIME_ID) - processCpuStart) - (clockNs(CLOCK_THREAD_CPUTIME_ID) - senderCpuStart);
            stopping = true;
            row.latenciesNs.insert(row.latenciesNs.end(), latencies.begin(), latencies.end());
        }
    };

    // Runs `application` in a thread of its own while `run` sends its grains; the thread ends once they all arrived.
    void sendWhile(ArrivalRun& run, ArrivalRow& row, std::function<void()> const& application)
    {
        std::thread worker{application};
        struct Joined
        {
            std::thread& joinee;
            ArrivalRun& stopped;

            ~Joined()
            {
                stopped.stopping = true;
                joinee.join();
            }
        } const joined{worker, run};
        run.send(row);
    }

    void arrivalsThroughReadGrain(int grains, ArrivalRow& row)
    {
        ArrivalRun run{grains};
        sendWhile(run, row,
                  [&]
                  {
                      while (!run.stopping)
                      {
                          if (auto const index = run.target.readGrain())
                          {
                              run.record(*index);
                          }
                      }
                  });
    }

    // `libraryThread`: a library thread reads the target (MXL_FABRICS_TARGET_EVENT_THREAD=1), as it does where the
    // transport has no wait descriptor; otherwise the dispatch reads it.
    void arrivalsThroughEvents(int grains, bool libraryThread, ArrivalRow& row)
    {
        ArrivalRun run{grains};
        auto const target = run.target.handle();
        mxl::bench::checkMxlStatus(mxlFabricsTargetSetEventHandler(target, MXL_FABRICS_EVENT_GRAIN_ARRIVED, &ArrivalRun::onGrain, &run),
                                   "mxlFabricsTargetSetEventHandler");
        int fd = -1;
        if (libraryThread)
        {
            ::setenv("MXL_FABRICS_TARGET_EVENT_THREAD", "1", 1);
        }
        auto const started = mxlFabricsTargetStartEvents(target, 0, &fd);
        ::unsetenv("MXL_FABRICS_TARGET_EVENT_THREAD");
        mxl::bench::checkMxlStatus(started, "mxlFabricsTargetStartEvents");
        sendWhile(run, row,
                  [&]
                  {
                      pollfd entry{fd, POLLIN, 0};
                      while (!run.stopping)
                      {
                          if (::poll(&entry, 1, 100) > 0)
                          {
                              std::size_t dispatched = 0;
                              static_cast<void>(mxlFabricsTargetDispatchEvents(target, 0, &dispatched));
                          }
                      }
                  });
    }

    void printTables(int wakes, int grains)
    {
        // Before any thread is pinned: the library threads are not placed by this bench. The rows take turns in rounds,
        // in an order that reverses each round, so that a machine whose speed drifts during the run favours none of them.
        ArrivalRow readGrain;
        ArrivalRow events;
        ArrivalRow eventsThread;
        std::vector<std::function<void(int)>> rows{[&](int count) { arrivalsThroughReadGrain(count, readGrain); },
                                                   [&](int count) { arrivalsThroughEvents(count, false, events); },
                                                   [&](int count) { arrivalsThroughEvents(count, true, eventsThread); }};
        auto const rounds = std::min(arrivalRounds, grains);
        for (int round = 0; round < rounds; ++round)
        {
            auto const count = grains / rounds + (round < grains % rounds ? 1 : 0);
            for (auto const& row : rows)
            {
                row(count);
            }
            std::reverse(rows.begin(), rows.end());
        }
        auto const baseline = mxl::bench::percentiles(readGrain.latenciesNs);
        fmt::print("## Grain arrival to the application, tcp loopback, 320x180 v210, {} grains per row in {} rounds, threads unpinned\n\n",
                   grains, rounds);
        fmt::print("| application waits in | transfer → application median / p99 (µs) | median vs ReadGrain | target-side CPU per grain "
                   "(µs) | CPU vs ReadGrain |\n|---|---|---|---|---|\n");
        fmt::print("| mxlFabricsTargetReadGrain, a thread of its own (baseline) | {:.1f} / {:.1f} | 1.00x | {:.1f} | 1.00x |\n",
                   baseline.medianUs, baseline.p99Us, readGrain.cpuUsPerGrain());
        for (auto const& [label, row] :
             {std::pair{"poll() on the event descriptor, then DispatchEvents (it reads the target)", &events},
              std::pair{"the same, a library thread reading the target (MXL_FABRICS_TARGET_EVENT_THREAD=1)", &eventsThread}})
        {
            auto const latency = mxl::bench::percentiles(row->latenciesNs);
            fmt::print("| {} | {:.1f} / {:.1f} | {:.2f}x | {:.1f} | {:.2f}x |\n", label, latency.medianUs, latency.p99Us,
                       latency.medianUs / baseline.medianUs, row->cpuUsPerGrain(), row->cpuUsPerGrain() / readGrain.cpuUsPerGrain());
        }

        mxl::bench::TemporaryDomains domains{"mxl-fabrics-events-bench", 200'000'000};
        mxl::bench::MxlEnd end{domains.target(), flowDefinition(), nullptr};
        mxl::bench::FabricsTarget idle{end, "tcp", 64};
        int fd = -1;
        mxl::bench::checkMxlStatus(mxlFabricsTargetStartEvents(idle.handle(), 0, &fd), "mxlFabricsTargetStartEvents");

        fmt::print("\n## Wake of a thread blocked in a wait, in-process ({} samples per row)\n\n", wakes);
        fmt::print("| placement | futex wake (baseline) median / p99 (µs) | eventfd write → poll() median / p99 (µs) | "
                   "EmitEvent → poll() → DispatchEvents → handler median / p99 (µs) | events vs futex median |\n");
        fmt::print("|---|---|---|---|---|\n");
        for (auto const& placement : mxl::bench::wakePlacements())
        {
            auto const futexWake = futexWakes(placement, wakes);
            auto const eventfdWake = eventfdWakes(placement, wakes);
            auto const eventWake = eventWakes(idle.handle(), fd, placement, wakes);
            fmt::print("| {} | {:.1f} / {:.1f} | {:.1f} / {:.1f} | {:.1f} / {:.1f} | {:.2f}x |\n", placement.describe(), futexWake.medianUs,
                       futexWake.p99Us, eventfdWake.medianUs, eventfdWake.p99Us, eventWake.medianUs, eventWake.p99Us,
                       eventWake.medianUs / futexWake.medianUs);
        }
    }
}

int main(int argc, char** argv)
{
    return mxl::bench::runWakeBench(argc, argv, "mxl-fabrics-events-bench",
                                    {"wake samples per row and placement", "grains sent over tcp loopback per arrival row",
                                     "Prints markdown tables; every mxl figure sits beside its baseline from the same run."},
                                    printTables);
}
