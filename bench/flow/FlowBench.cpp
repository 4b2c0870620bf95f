// mxl-flow-bench: how fast a flow hands a grain from a writer to a blocked reader in another process, and how fast a
// writer fills and commits 1080p grains; each beside its baseline (a raw futex ping-pong, a plain memcpy) measured in
// the same run on the same placement.
#include <mxl/flow.h>
#include <mxl/mxl.h>
#include <mxl/time.h>

#include "CpuPlacement.hpp"
#include "Percentiles.hpp"
#include "ScratchDirectory.hpp"
#include "SharedArena.hpp"
#include "WakeBench.hpp"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <linux/futex.h>
#include <stdexcept>
#include <string>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace
{
    using mxl::bench::Percentiles;
    using mxl::bench::Placement;

    constexpr char const* smallFlowId = "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0";
    constexpr char const* fullHdFlowId = "1f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0";

    std::string videoFlowDefinition(char const* id, int width, int height)
    {
        return fmt::format(R"({{"id":"{}","format":"urn:x-nmos:format:video","label":"mxl-flow-bench",)"
                           R"("tags":{{"urn:x-nmos:tag:grouphint/v1.0":["mxl-flow-bench:Video"]}},)"
                           R"("media_type":"video/v210","grain_rate":{{"numerator":50,"denominator":1}},)"
                           R"("frame_width":{},"frame_height":{},"interlace_mode":"progressive"}})",
                           id, width, height);
    }

    std::uint64_t monotonicNs()
    {
        timespec now{};
        ::clock_gettime(CLOCK_MONOTONIC, &now);
        return static_cast<std::uint64_t>(now.tv_sec) * 1'000'000'000ULL + static_cast<std::uint64_t>(now.tv_nsec);
    }

    void check(mxlStatus status, char const* what)
    {
        if (status != MXL_STATUS_OK)
        {
            throw std::runtime_error{fmt::format("{} failed with status {}", what, static_cast<int>(status))};
        }
    }

    // What the waiting child and the waking parent share for one latency measurement.
    struct PingPong
    {
        std::atomic<std::uint32_t> word;
        std::atomic<std::uint64_t> stampNs;
        // The index the child is about to wait for; the parent wakes it only once it is (nearly) asleep.
        std::atomic<std::int64_t> waitingFor;
        std::atomic<std::int32_t> failures;
        std::uint64_t latencyNs[1];
    };

    long futex(std::atomic<std::uint32_t>* word, int op, std::uint32_t value)
    {
        return ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), op, value, nullptr, nullptr, 0);
    }

    // Waits until the child announced it is about to block on `index`, then gives it time to fall asleep.
    void awaitSleeper(PingPong& shared, std::int64_t index)
    {
        while (shared.waitingFor.load(std::memory_order_acquire) != index)
        {
            std::this_thread::yield();
        }
        std::this_thread::sleep_for(std::chrono::microseconds{300});
    }

    int finishChild(pid_t child)
    {
        int status = 0;
        ::waitpid(child, &status, 0);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }

    Percentiles rawFutexPingPong(Placement placement, int iterations)
    {
        mxl::bench::SharedArena arena{sizeof(PingPong) + sizeof(std::uint64_t) * static_cast<std::size_t>(iterations)};
        auto& shared = *arena.as<PingPong>();
        shared.waitingFor = -1;
        auto const child = ::fork();
        if (child == 0)
        {
            mxl::bench::pinToCpu(placement.readerCpu);
            for (int i = 0; i < iterations; ++i)
            {
                auto const expected = shared.word.load(std::memory_order_acquire);
                shared.waitingFor.store(i, std::memory_order_release);
                while (shared.word.load(std::memory_order_acquire) == expected)
                {
                    futex(&shared.word, FUTEX_WAIT, expected);
                }
                shared.latencyNs[i] = monotonicNs() - shared.stampNs.load(std::memory_order_acquire);
            }
            ::_exit(0);
        }
        mxl::bench::pinToCpu(placement.writerCpu);
        for (int i = 0; i < iterations; ++i)
        {
            awaitSleeper(shared, i);
            shared.stampNs.store(monotonicNs(), std::memory_order_release);
            shared.word.fetch_add(1, std::memory_order_release);
            futex(&shared.word, FUTEX_WAKE, INT_MAX);
        }
        if (finishChild(child) != 0)
        {
            throw std::runtime_error{"futex ping-pong child failed"};
        }
        return mxl::bench::percentiles({shared.latencyNs, shared.latencyNs + iterations});
    }

    Percentiles flowCommitToWake(std::string const& domain, Placement placement, int iterations)
    {
        mxl::bench::SharedArena arena{sizeof(PingPong) + sizeof(std::uint64_t) * static_cast<std::size_t>(iterations)};
        auto& shared = *arena.as<PingPong>();
        shared.waitingFor = -1;

        auto* instance = mxlCreateInstance(domain.c_str(), nullptr);
        if (instance == nullptr)
        {
            throw std::runtime_error{"cannot open domain " + domain};
        }
        mxlFlowWriter writer = nullptr;
        check(mxlCreateFlowWriter(instance, videoFlowDefinition(smallFlowId, 48, 4).c_str(), nullptr, &writer, nullptr, nullptr),
              "mxlCreateFlowWriter");
        // Start far from 0 so that the first reads are not mistaken for "nothing written yet".
        constexpr std::uint64_t firstIndex = 1'000'000;

        auto const child = ::fork();
        if (child == 0)
        {
            mxl::bench::pinToCpu(placement.readerCpu);
            auto* readerInstance = mxlCreateInstance(domain.c_str(), nullptr);
            mxlFlowReader reader = nullptr;
            if (readerInstance == nullptr || mxlCreateFlowReader(readerInstance, smallFlowId, nullptr, &reader) != MXL_STATUS_OK)
            {
                ::_exit(2);
            }
            for (int i = 0; i < iterations; ++i)
            {
                mxlGrainInfo grain;
                std::uint8_t* payload = nullptr;
                shared.waitingFor.store(i, std::memory_order_release);
                auto const status =
                    mxlFlowReaderGetGrain(reader, firstIndex + static_cast<std::uint64_t>(i), 1'000'000'000ULL, &grain, &payload);
                auto const wokeNs = monotonicNs();
                if (status != MXL_STATUS_OK)
                {
                    shared.failures.fetch_add(1);
                    continue;
                }
                std::uint64_t stamp = 0;
                std::memcpy(&stamp, payload, sizeof stamp);
                shared.latencyNs[i] = wokeNs - stamp;
            }
            mxlReleaseFlowReader(readerInstance, reader);
            mxlDestroyInstance(readerInstance);
            ::_exit(0);
        }

        mxl::bench::pinToCpu(placement.writerCpu);
        for (int i = 0; i < iterations; ++i)
        {
            awaitSleeper(shared, i);
            mxlGrainInfo grain;
            std::uint8_t* payload = nullptr;
            check(mxlFlowWriterOpenGrain(writer, firstIndex + static_cast<std::uint64_t>(i), &grain, &payload), "mxlFlowWriterOpenGrain");
            auto const stamp = monotonicNs();
            std::memcpy(payload, &stamp, sizeof stamp);
            grain.validSlices = grain.totalSlices;
            check(mxlFlowWriterCommitGrain(writer, &grain), "mxlFlowWriterCommitGrain");
        }
        auto const childStatus = finishChild(child);
        mxlReleaseFlowWriter(instance, writer);
        mxlDestroyInstance(instance);
        if (childStatus != 0 || shared.failures.load() != 0)
        {
            throw std::runtime_error{fmt::format("reader process failed (exit {}, {} failed reads)", childStatus, shared.failures.load())};
        }
        return mxl::bench::percentiles({shared.latencyNs, shared.latencyNs + iterations});
    }

    struct Throughput
    {
        double grainsPerSecond;
        double gigabytesPerSecond;
    };

    template <typename Body>
    Throughput measureThroughput(std::size_t grainBytes, int grains, Body&& body)
    {
        body(0);
        auto const start = monotonicNs();
        for (int i = 1; i <= grains; ++i)
        {
            body(i);
        }
        auto const seconds = static_cast<double>(monotonicNs() - start) / 1e9;
        return {grains / seconds, static_cast<double>(grainBytes) * grains / seconds / 1e9};
    }

    std::pair<Throughput, Throughput> writeCommitThroughput(std::string const& domain, int grains)
    {
        auto* instance = mxlCreateInstance(domain.c_str(), nullptr);
        mxlFlowWriter writer = nullptr;
        mxlFlowConfigInfo config;
        check(mxlCreateFlowWriter(instance, videoFlowDefinition(fullHdFlowId, 1920, 1080).c_str(), nullptr, &writer, &config, nullptr),
              "mxlCreateFlowWriter");
        mxlGrainInfo probe;
        check(mxlFlowWriterGetGrainInfo(writer, 0, &probe), "mxlFlowWriterGetGrainInfo");
        std::size_t const grainBytes = probe.grainSize;
        std::vector<std::uint8_t> source(grainBytes, 0x5a);
        // The baseline copies into as many buffers as the flow has ring slots, so both sides touch the same amount of
        // memory (a single destination would stay in cache and flatter the baseline).
        std::vector<std::vector<std::uint8_t>> destinations(config.discrete.grainCount, std::vector<std::uint8_t>(grainBytes));

        auto const baseline = measureThroughput(grainBytes, grains,
                                                [&](int i)
                                                {
                                                    source[0] = static_cast<std::uint8_t>(i);
                                                    std::memcpy(destinations[static_cast<std::size_t>(i) % destinations.size()].data(),
                                                                source.data(), grainBytes);
                                                });
        // Touch every ring slot once first so the measurement sees warm pages, as the memcpy baseline does.
        for (std::uint32_t slot = 0; slot < config.discrete.grainCount; ++slot)
        {
            mxlGrainInfo grain;
            std::uint8_t* payload = nullptr;
            check(mxlFlowWriterOpenGrain(writer, slot, &grain, &payload), "mxlFlowWriterOpenGrain");
            std::memset(payload, 0, grainBytes);
            check(mxlFlowWriterCancelGrain(writer), "mxlFlowWriterCancelGrain");
        }
        auto const flow = measureThroughput(grainBytes, grains,
                                            [&](int i)
                                            {
                                                mxlGrainInfo grain;
                                                std::uint8_t* payload = nullptr;
                                                check(mxlFlowWriterOpenGrain(writer, static_cast<std::uint64_t>(i), &grain, &payload),
                                                      "mxlFlowWriterOpenGrain");
                                                source[0] = static_cast<std::uint8_t>(i);
                                                std::memcpy(payload, source.data(), grainBytes);
                                                grain.validSlices = grain.totalSlices;
                                                check(mxlFlowWriterCommitGrain(writer, &grain), "mxlFlowWriterCommitGrain");
                                            });
        mxlReleaseFlowWriter(instance, writer);
        mxlDestroyInstance(instance);
        return {flow, baseline};
    }

    void printTables(int wakes, int grains)
    {
        mxl::bench::ScratchDirectory const scratch{"mxl-flow-bench"};
        auto const domain = scratch.path().string();
        fmt::print("## Commit-to-wake latency, blocking reader in another process ({} samples per row)\n\n", wakes);
        fmt::print("| placement | mxl commit → reader wake median / p99 (µs) | raw futex wake median / p99 (µs) | median ratio |\n");
        fmt::print("|---|---|---|---|\n");
        for (auto const& placement : mxl::bench::wakePlacements())
        {
            auto const raw = rawFutexPingPong(placement, wakes);
            auto const flow = flowCommitToWake(domain, placement, wakes);
            fmt::print("| {} | {:.1f} / {:.1f} | {:.1f} / {:.1f} | {:.2f}x |\n", placement.describe(), flow.medianUs, flow.p99Us,
                       raw.medianUs, raw.p99Us, flow.medianUs / raw.medianUs);
        }
        mxl::bench::pinToCpu(0);
        auto const [flow, baseline] = writeCommitThroughput(domain, grains);
        fmt::print("\n## Grain write + commit, 1080p v210 (5,529,600 B), {} grains, one thread\n\n", grains);
        fmt::print("| operation | grains/s | GB/s | vs memcpy |\n|---|---|---|---|\n");
        fmt::print("| memcpy of the same bytes into a ring of as many buffers (baseline) | {:.0f} | {:.2f} | 1.00x |\n",
                   baseline.grainsPerSecond, baseline.gigabytesPerSecond);
        fmt::print("| OpenGrain + memcpy into the payload + CommitGrain | {:.0f} | {:.2f} | {:.2f}x |\n", flow.grainsPerSecond,
                   flow.gigabytesPerSecond, flow.gigabytesPerSecond / baseline.gigabytesPerSecond);
    }
}

int main(int argc, char** argv)
{
    return mxl::bench::runWakeBench(argc, argv, "mxl-flow-bench",
                                    {"commit-to-wake samples per placement", "1080p v210 grains written for the throughput rows",
                                     "Prints a markdown table; every mxl figure sits beside its baseline from the same run."},
                                    printTables);
}
