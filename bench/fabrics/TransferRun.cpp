#include "TransferRun.hpp"

#include "HeapAllocations.hpp"
#include "SharedArena.hpp"
#include "SharedTicket.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstring>
#include <ctime>
#include <stdexcept>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace mxl::bench
{
    namespace
    {
        // Indices start far from 0 so that a grain is never mistaken for an unwritten slot.
        constexpr std::uint64_t firstIndex = 1'000'000;
        constexpr std::uint64_t noIndex = ~std::uint64_t{0};
        // Latency stamps kept per row; grains beyond this still count, unstamped.
        constexpr std::size_t stampCapacity = std::size_t{1} << 20;
        constexpr std::size_t ticketCapacity = 64 * 1024;
        constexpr std::size_t errorCapacity = 1024;
        constexpr auto handshakeTimeout = std::chrono::seconds{30};

        enum Side
        {
            targetSide,
            initiatorSide
        };

        struct SideOutcome
        {
            double cpuSeconds;
            double wallSeconds;
            std::uint64_t heapAllocations;
        };

        // The memory both children and the parent share for one row.
        struct RunShared
        {
            SharedTicket<ticketCapacity> ticket;
            std::atomic<std::uint32_t> failed;
            std::atomic<std::uint32_t> initiatorDone;
            // The first measured index, set by the initiator before it sends that grain.
            std::atomic<std::uint64_t> measureFrom;
            // The last measured (and last sent) index, set when the initiator stops.
            std::atomic<std::uint64_t> lastIndex;
            // One past the highest index the target has read: the initiator's credit.
            std::atomic<std::uint64_t> readUpTo;
            SideOutcome outcome[2];
            char error[2][errorCapacity];
            std::uint64_t sentNs[stampCapacity];
            std::uint64_t readNs[stampCapacity];
        };

        struct Snapshot
        {
            std::uint64_t monotonicNs;
            double cpuSeconds;
            std::uint64_t heapAllocations;
        };

        std::uint64_t monotonicNs()
        {
            timespec now{};
            ::clock_gettime(CLOCK_MONOTONIC, &now);
            return static_cast<std::uint64_t>(now.tv_sec) * 1'000'000'000ULL + static_cast<std::uint64_t>(now.tv_nsec);
        }

        double cpuSeconds()
        {
            rusage usage{};
            ::getrusage(RUSAGE_SELF, &usage);
            auto const seconds = [](timeval const& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
            return seconds(usage.ru_utime) + seconds(usage.ru_stime);
        }

        Snapshot snapshot()
        {
            return {monotonicNs(), cpuSeconds(), heapAllocations()};
        }

        SideOutcome between(Snapshot const& start, Snapshot const& end)
        {
            return {end.cpuSeconds - start.cpuSeconds, static_cast<double>(end.monotonicNs - start.monotonicNs) / 1e9,
                    end.heapAllocations - start.heapAllocations};
        }

        std::uint64_t* stampSlot(std::uint64_t* stamps, std::uint64_t index)
        {
            auto const offset = index - firstIndex;
            return offset < stampCapacity ? &stamps[offset] : nullptr;
        }

        void throwIfPeerFailed(RunShared const& shared)
        {
            if (shared.failed.load(std::memory_order_acquire) != 0)
            {
                throw std::runtime_error{"the other process failed"};
            }
        }

        void pin(std::optional<Placement> const& placement, Side side)
        {
            if (placement && !pinToCpu(side == targetSide ? placement->readerCpu : placement->writerCpu))
            {
                throw std::runtime_error{"sched_setaffinity refused the placement"};
            }
        }

        void runTarget(RunShared& shared, RunConfig const& config, TransportFactory const& factory)
        {
            pin(config.placement, targetSide);
            auto transportConfig = config.transport;
            transportConfig.domain = config.targetDomain;
            auto const target = factory.target(transportConfig);
            shared.ticket.publish(target->ticket());

            // The read before the first measured one opens the measured interval; the read of the last index closes it.
            std::optional<Snapshot> previousRead;
            std::optional<Snapshot> start;
            std::uint64_t lastReadIndex = noIndex;
            std::optional<Snapshot> lastRead;
            auto idleSince = std::chrono::steady_clock::now();
            for (;;)
            {
                throwIfPeerFailed(shared);
                auto const lastIndex = shared.lastIndex.load(std::memory_order_acquire);
                if (lastIndex != noIndex && shared.readUpTo.load(std::memory_order_acquire) > lastIndex)
                {
                    break;
                }
                auto const index = target->readGrain();
                if (!index)
                {
                    if (std::chrono::steady_clock::now() - idleSince > handshakeTimeout)
                    {
                        throw std::runtime_error{fmt::format("no grain arrived for {} s (last read index {})",
                                                             std::chrono::duration_cast<std::chrono::seconds>(handshakeTimeout).count(),
                                                             lastReadIndex)};
                    }
                    continue;
                }
                auto const now = snapshot();
                idleSince = std::chrono::steady_clock::now();
                if (auto* slot = stampSlot(shared.readNs, *index))
                {
                    *slot = now.monotonicNs;
                }
                auto readUpTo = shared.readUpTo.load(std::memory_order_relaxed);
                while (*index + 1 > readUpTo && !shared.readUpTo.compare_exchange_weak(readUpTo, *index + 1, std::memory_order_release))
                {
                }
                if (!start && *index >= shared.measureFrom.load(std::memory_order_acquire))
                {
                    start = previousRead.value_or(now);
                }
                previousRead = now;
                lastReadIndex = *index;
                lastRead = now;
            }
            if (!start || !lastRead)
            {
                throw std::runtime_error{"the target read no measured grain"};
            }
            shared.outcome[targetSide] = between(*start, *lastRead);
            // Tearing the target down first would look like a failure to an initiator still closing its connection.
            while (shared.initiatorDone.load(std::memory_order_acquire) == 0)
            {
                throwIfPeerFailed(shared);
                std::this_thread::sleep_for(std::chrono::milliseconds{1});
            }
        }

        std::vector<char> awaitTicket(RunShared& shared)
        {
            auto const deadline = std::chrono::steady_clock::now() + handshakeTimeout;
            while (!shared.ticket.published())
            {
                throwIfPeerFailed(shared);
                if (std::chrono::steady_clock::now() > deadline)
                {
                    throw std::runtime_error{"the target published no ticket"};
                }
                std::this_thread::sleep_for(std::chrono::milliseconds{1});
            }
            return shared.ticket.read();
        }

        void runInitiator(RunShared& shared, RunConfig const& config, TransportFactory const& factory)
        {
            pin(config.placement, initiatorSide);
            auto transportConfig = config.transport;
            transportConfig.domain = config.initiatorDomain;
            auto const initiator = factory.initiator(transportConfig, awaitTicket(shared));
            auto const depth = config.transport.depth;

            auto const toNs = [](double seconds) { return static_cast<std::uint64_t>(seconds * 1e9); };
            auto const warmupEndNs = monotonicNs() + toNs(config.warmupSeconds);
            std::uint64_t measureEndNs = noIndex;
            std::optional<Snapshot> start;
            // Polls the initiator's completions until `ready`; a transport that stops moving is an error, not a hang.
            auto const waitFor = [&](auto&& ready, char const* what)
            {
                auto const deadline = std::chrono::steady_clock::now() + handshakeTimeout;
                while (!ready())
                {
                    initiator->progress();
                    throwIfPeerFailed(shared);
                    if (std::chrono::steady_clock::now() > deadline)
                    {
                        throw std::runtime_error{fmt::format("stuck {} (target read up to index {})", what, shared.readUpTo.load())};
                    }
                }
            };

            auto index = firstIndex;
            for (;; ++index)
            {
                auto const now = monotonicNs();
                if (!start && now >= warmupEndNs)
                {
                    shared.measureFrom.store(index, std::memory_order_release);
                    start = snapshot();
                    measureEndNs = now + toNs(config.measureSeconds);
                }
                else if (start && now >= measureEndNs)
                {
                    break;
                }
                waitFor([&] { return index - shared.readUpTo.load(std::memory_order_acquire) < depth; }, "waiting for the target to read");
                initiator->stage(index);
                if (auto* slot = stampSlot(shared.sentNs, index))
                {
                    *slot = monotonicNs();
                }
                waitFor([&] { return initiator->transfer(index); }, "waiting to send");
                initiator->progress();
            }
            auto const lastIndex = index - 1;
            shared.lastIndex.store(lastIndex, std::memory_order_release);
            waitFor([&] { return initiator->progress() && shared.readUpTo.load(std::memory_order_acquire) > lastIndex; },
                    "draining the last grains");
            shared.outcome[initiatorSide] = between(*start, snapshot());
        }

        // Runs one side in this (child) process; never returns.
        [[noreturn]] void runChild(Side side, RunShared& shared, RunConfig const& config, TransportFactory const& factory)
        {
            int exitCode = 0;
            try
            {
                if (side == targetSide)
                {
                    runTarget(shared, config, factory);
                }
                else
                {
                    runInitiator(shared, config, factory);
                    shared.initiatorDone.store(1, std::memory_order_release);
                }
            }
            catch (std::exception const& e)
            {
                std::snprintf(shared.error[side], errorCapacity, "%s", e.what());
                shared.failed.store(1, std::memory_order_release);
                exitCode = 1;
            }
            ::_exit(exitCode);
        }

        pid_t forkChild(Side side, RunShared& shared, RunConfig const& config, TransportFactory const& factory)
        {
            auto const child = ::fork();
            if (child < 0)
            {
                throw std::runtime_error{fmt::format("fork failed: {}", std::strerror(errno))};
            }
            if (child == 0)
            {
                runChild(side, shared, config, factory);
            }
            return child;
        }

        // Waits for both children; kills what is still running at the deadline (a hung provider must not hang the bench).
        bool reapChildren(std::vector<pid_t> children, std::chrono::steady_clock::time_point deadline)
        {
            bool allSucceeded = true;
            while (!children.empty())
            {
                for (auto it = children.begin(); it != children.end();)
                {
                    int status = 0;
                    if (::waitpid(*it, &status, WNOHANG) == *it)
                    {
                        allSucceeded = allSucceeded && WIFEXITED(status) && WEXITSTATUS(status) == 0;
                        it = children.erase(it);
                    }
                    else
                    {
                        ++it;
                    }
                }
                if (!children.empty() && std::chrono::steady_clock::now() > deadline)
                {
                    for (auto const child : children)
                    {
                        ::kill(child, SIGKILL);
                        ::waitpid(child, nullptr, 0);
                    }
                    return false;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds{5});
            }
            return allSucceeded;
        }

        RowResult summarize(RunShared const& shared, RunConfig const& config)
        {
            auto const measureFrom = shared.measureFrom.load();
            auto const lastIndex = shared.lastIndex.load();
            RowResult result;
            result.grains = lastIndex - measureFrom + 1;
            auto const gigabytes = static_cast<double>(result.grains) * static_cast<double>(config.transport.format.regionBytes()) / 1e9;
            auto const& target = shared.outcome[targetSide];
            auto const& initiator = shared.outcome[initiatorSide];
            result.grainsPerSecond = static_cast<double>(result.grains) / target.wallSeconds;
            result.gigabytesPerSecond = gigabytes / target.wallSeconds;
            result.initiatorCpuSecondsPerGigabyte = initiator.cpuSeconds / gigabytes;
            result.targetCpuSecondsPerGigabyte = target.cpuSeconds / gigabytes;
            result.initiatorAllocationsPerGrain = static_cast<double>(initiator.heapAllocations) / static_cast<double>(result.grains);
            result.targetAllocationsPerGrain = static_cast<double>(target.heapAllocations) / static_cast<double>(result.grains);

            std::vector<std::uint64_t> latencies;
            auto const stamped = std::min<std::uint64_t>(lastIndex + 1, firstIndex + stampCapacity);
            for (auto index = measureFrom; index < stamped; ++index)
            {
                latencies.push_back(shared.readNs[index - firstIndex] - shared.sentNs[index - firstIndex]);
            }
            result.latency = percentiles(std::move(latencies));
            return result;
        }
    }

    RowResult runTransfer(RunConfig const& config, TransportFactory const& factory)
    {
        SharedArena arena{sizeof(RunShared)};
        auto& shared = *arena.as<RunShared>();
        shared.measureFrom = noIndex;
        shared.lastIndex = noIndex;
        shared.readUpTo = firstIndex;

        auto const target = forkChild(targetSide, shared, config, factory);
        auto const initiator = forkChild(initiatorSide, shared, config, factory);
        auto const deadline = std::chrono::steady_clock::now() + handshakeTimeout * 2 +
                              std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                  std::chrono::duration<double>{config.warmupSeconds + config.measureSeconds});
        if (!reapChildren({target, initiator}, deadline))
        {
            std::string reason;
            for (auto const side : {targetSide, initiatorSide})
            {
                if (shared.error[side][0] != '\0')
                {
                    reason += fmt::format("{}{}: {}", reason.empty() ? "" : "; ", side == targetSide ? "target" : "initiator",
                                          shared.error[side]);
                }
            }
            throw std::runtime_error{reason.empty() ? std::string{"a process crashed or hung"} : reason};
        }
        return summarize(shared, config);
    }
}
