// mxl-fabrics-audio-bench: 48 kHz float32 audio batches (10 ms, 480 samples per channel) of 2 and 16 channels moved
// between two processes by libmxl-fabrics, beside plain libfabric RMA writes of about the same bytes (bench/fabrics'
// raw transport: one contiguous write per batch, its grain header included), with the same provider and depth, in the
// same run. Both paths run as fast as the target takes them; the CPU columns scale each side's CPU time per batch to
// one real-time flow (100 batches/s).
#include "AudioTransport.hpp"
#include "TemporaryDomains.hpp"
#include "TransferRun.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

namespace
{
    using namespace mxl::bench;

    constexpr std::uint32_t batchSamples = 480;
    constexpr double batchesPerSecondRealTime = 48000.0 / batchSamples;
    constexpr std::uint32_t depth = 4;
    constexpr double warmupSeconds = 0.5;

    // 200 ms of history per domain: 41 bounce entries, 20 readable batches.
    constexpr std::uint64_t historyDurationNs = 200'000'000;

    // The raw baseline's write per batch: its 8192-byte grain header plus 128-byte lines, as close to the audio entry
    // as that allows (16 channels: 30720 B for 30736 B; 2 channels: 8320 B for 3856 B, the header alone being larger).
    GrainFormat rawFormatFor(AudioShape const& shape)
    {
        auto const lines = shape.entryBytes() > grainHeaderBytes ? (shape.entryBytes() - grainHeaderBytes) / 128 : 1;
        return {fmt::format("{}ch", shape.channels), 6, static_cast<int>(std::max<std::size_t>(lines, 1))};
    }

    void printRow(std::string const& provider, AudioShape const& shape, char const* path, std::size_t bytes, RowResult const& row)
    {
        auto const cpuPerBatch = [&](double secondsPerGigabyte) { return secondsPerGigabyte * static_cast<double>(bytes) / 1e9; };
        auto const samplesPerSecond = row.grainsPerSecond * batchSamples;
        fmt::print("| {} | {} | {} | {} | {:.0f} | {:.2f} M | {:.0f}x | {:.2f} % | {:.2f} % | {:.0f} / {:.0f} | {:.2f} / {:.2f} |\n",
                   provider, shape.channels, path, bytes, row.grainsPerSecond, samplesPerSecond / 1e6,
                   row.grainsPerSecond / batchesPerSecondRealTime,
                   100.0 * cpuPerBatch(row.initiatorCpuSecondsPerGigabyte) * batchesPerSecondRealTime,
                   100.0 * cpuPerBatch(row.targetCpuSecondsPerGigabyte) * batchesPerSecondRealTime, row.latency.medianUs, row.latency.p99Us,
                   row.initiatorAllocationsPerGrain, row.targetAllocationsPerGrain);
    }
}

int main(int argc, char** argv)
{
    double seconds = 2.0;
    std::vector<std::string> providers{"tcp", "shm"};
    for (int i = 1; i < argc; ++i)
    {
        std::string const argument{argv[i]};
        if (argument == "--seconds" && i + 1 < argc)
        {
            seconds = std::strtod(argv[++i], nullptr);
        }
        else if (argument == "--provider" && i + 1 < argc)
        {
            providers = {argv[++i]};
        }
        else
        {
            fmt::print(stderr, "usage: mxl-fabrics-audio-bench [--seconds S (default 2)] [--provider tcp|shm (default both)]\n");
            return argument == "--help" || argument == "-h" ? 0 : 2;
        }
    }

    // Placed as bench/fabrics places them by default: initiator on vCPU 0, target on vCPU 1.
    std::optional<Placement> const placement = onlineCpuCount() > 1 ? std::optional<Placement>{Placement{0, 1}} : std::nullopt;
    fmt::print("# mxl-fabrics-audio-bench: {} s per run after {} s warm-up, {} batches in flight, batches of {} samples per channel, {}\n",
               seconds, warmupSeconds, depth, batchSamples,
               placement ? "initiator and target pinned, " + placement->describe() : std::string{"not pinned"});
    fmt::print("samples/s per channel; CPU = user + system time of each process per batch, times the {} batches/s of one real-time "
               "flow; latency = transfer call to the target's read returning (median / p99 us).\n\n",
               batchesPerSecondRealTime);
    fmt::print(
        "| provider | channels | path | bytes/batch | batches/s | samples/s | x real time | initiator CPU per flow | target CPU per flow "
        "| latency us | heap allocations per batch initiator / target |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
    bool anyFailed = false;
    for (auto const& provider : providers)
    {
        for (std::uint32_t const channels : {2u, 16u})
        {
            AudioShape const shape{channels, batchSamples};
            TemporaryDomains const domains{"mxl-fabrics-audio-bench", historyDurationNs};
            auto const format = rawFormatFor(shape);
            // Field by field: GCC 12 at -O3 takes the empty domain of a braced TransportConfig for uninitialized.
            RunConfig config;
            config.transport.provider = provider;
            config.transport.format = format;
            config.transport.depth = depth;
            config.transport.ringSlots = 8;
            config.targetDomain = domains.target();
            config.initiatorDomain = domains.initiator();
            config.warmupSeconds = warmupSeconds;
            config.measureSeconds = seconds;
            config.placement = placement;
            TransportFactory const raw{makeRawTarget, makeRawInitiator};
            TransportFactory const audio{[shape](TransportConfig const& transport) { return makeMxlAudioTarget(transport, shape); },
                                         [shape](TransportConfig const& transport, std::vector<char> const& ticket)
                                         { return makeMxlAudioInitiator(transport, shape, ticket); }};
            for (auto const& [path, factory, bytes] :
                 {std::tuple{"raw libfabric", &raw, format.regionBytes()}, std::tuple{"libmxl-fabrics", &audio, shape.entryBytes()}})
            {
                try
                {
                    printRow(provider, shape, path, bytes, runTransfer(config, *factory));
                }
                catch (std::exception const& e)
                {
                    anyFailed = true;
                    fmt::print("| {} | {} | {} | {} | failed: {} ||||||\n", provider, channels, path, bytes, e.what());
                }
            }
        }
    }
    return anyFailed ? 1 : 0;
}
