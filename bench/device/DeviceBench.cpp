// mxl-device-bench: device-memory flows against what they replace, each beside its baseline measured in the same run: a
// device flow's write + commit against a bare cudaMemcpy device to device, a reader's mxlFlowReaderGetGrain on a device
// flow against a host flow, and libmxl-fabrics moving device flows against host flows (or the refusal it answers).
#include "CudaCall.hpp"
#include "DeviceOptions.hpp"
#include "FabricRun.hpp"
#include "FlowRows.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <exception>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

namespace
{
    using namespace mxl::bench::device;

    constexpr int exitMeasured = 0;
    constexpr int exitNotMeasured = 1;
    constexpr int exitBadCommandLine = 2;

    // Why this process cannot run the bench's GPU rows, in the runtime's words; nullopt when it sees a CUDA device.
    std::optional<std::string> missingDevice()
    {
        int count = 0;
        if (auto const error = cudaGetDeviceCount(&count); error != cudaSuccess)
        {
            return fmt::format("cudaGetDeviceCount: {}", cudaErrorText(error));
        }
        if (count == 0)
        {
            return std::string{"cudaGetDeviceCount: 0 devices"};
        }
        return std::nullopt;
    }

    // Selects the device and says which it is: "NVIDIA H100 80GB HBM3 (ordinal 0, PCI bus id 0000:17:00.0)".
    std::string selectDevice(int deviceIndex)
    {
        int count = 0;
        checkCuda(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
        if (deviceIndex >= count)
        {
            throw std::invalid_argument{fmt::format("--device {}: this process sees {} CUDA device(s), expected an ordinal from 0 to {}",
                                                    deviceIndex, count, count - 1)};
        }
        checkCuda(cudaSetDevice(deviceIndex), fmt::format("cudaSetDevice {}", deviceIndex));
        cudaDeviceProp properties{};
        checkCuda(cudaGetDeviceProperties(&properties, deviceIndex), fmt::format("cudaGetDeviceProperties {}", deviceIndex));
        char busId[32] = {};
        checkCuda(cudaDeviceGetPCIBusId(busId, sizeof busId, deviceIndex), fmt::format("cudaDeviceGetPCIBusId {}", deviceIndex));
        return fmt::format("{} (ordinal {}, PCI bus id {})", properties.name, deviceIndex, busId);
    }

    FlowShape readFlowShape(DeviceOptions const& options)
    {
        std::ifstream file{options.flowFile};
        std::stringstream text;
        text << file.rdbuf();
        auto const definition = text.str();
        auto const json = nlohmann::json::parse(definition, nullptr, false);
        if (!json.is_object() || !json.contains("id") || !json["id"].is_string())
        {
            throw std::invalid_argument{
                fmt::format("--flow '{}': expected a flow definition, a JSON object with a string \"id\"", options.flowFile)};
        }
        // docs/device-flows.md: a sample ring hands out host-side fragments, so libmxl keeps audio in host memory.
        if (json.value("format", "") == "urn:x-nmos:format:audio")
        {
            throw std::invalid_argument{
                fmt::format("--flow '{}' is an audio flow; device flows are video or data flows", options.flowFile)};
        }
        return {definition, json["id"].get<std::string>(), options.deviceIndex, options.grains};
    }

    std::string ratio(double value, double baseline)
    {
        return fmt::format("{:.2f}x", value / baseline);
    }

    void printWriteCommit(FlowShape const& shape, std::string const& flowFile)
    {
        auto const rows = measureWriteCommit(shape);
        fmt::print("## Grain write + commit into a device flow, {} ({} B payload), {} grains, one thread\n\n", flowFile, rows.grainBytes,
                   shape.grains);
        fmt::print("| operation | grains/s | GB/s | µs per grain | vs cudaMemcpy |\n|---|---|---|---|---|\n");
        auto const& baseline = rows.cudaMemcpyBaseline;
        fmt::print("| cudaMemcpy device→device of the same bytes into a ring of as many cudaMalloc buffers (baseline) | {:.0f} | {:.2f} | "
                   "{:.1f} | 1.00x |\n",
                   baseline.grainsPerSecond, baseline.gigabytesPerSecond, baseline.microsecondsPerGrain);
        auto const& flow = rows.deviceFlow;
        fmt::print("| flow write+commit: OpenGrain + cudaMemcpy device→device into the payload + CommitGrain | {:.0f} | {:.2f} | {:.1f} | "
                   "{} |\n\n",
                   flow.grainsPerSecond, flow.gigabytesPerSecond, flow.microsecondsPerGrain,
                   ratio(flow.gigabytesPerSecond, baseline.gigabytesPerSecond));
    }

    void printReaders(FlowShape const& shape)
    {
        auto const rows = measureReaders(shape);
        fmt::print("## mxlFlowReaderGetGrain of a committed grain, reader in the writer's process, {} calls\n\n", shape.grains);
        fmt::print("| flow | median / p99 (µs) | median vs host flow |\n|---|---|---|\n");
        fmt::print("| host flow (baseline) | {:.2f} / {:.2f} | 1.00x |\n", rows.hostFlow.medianUs, rows.hostFlow.p99Us);
        fmt::print("| flow reader GetGrain: device flow | {:.2f} / {:.2f} | {} |\n\n", rows.deviceFlow.medianUs, rows.deviceFlow.p99Us,
                   ratio(rows.deviceFlow.medianUs, rows.hostFlow.medianUs));
    }

    // One fabric row; false when it could not be measured or a grain did not arrive intact.
    bool printFabricRow(FabricShape const& shape, char const* path, std::optional<double> hostGigabytesPerSecond,
                        std::optional<double>& gigabytesPerSecond)
    {
        try
        {
            auto const outcome = runFabric(shape);
            if (!outcome.result)
            {
                fmt::print("| {} | {}: refused: {} | | | | | |\n", shape.provider, path, outcome.refusal);
                return true;
            }
            auto const& result = *outcome.result;
            gigabytesPerSecond = result.throughput.gigabytesPerSecond;
            auto const versusHost = hostGigabytesPerSecond ? ratio(result.throughput.gigabytesPerSecond, *hostGigabytesPerSecond) : "1.00x";
            fmt::print("| {} | {} | {:.0f} | {:.2f} | {} of {} | {} of {} | {} |\n", shape.provider, path,
                       result.throughput.grainsPerSecond, result.throughput.gigabytesPerSecond, result.received, result.sent,
                       result.verified, result.checked, versusHost);
            return result.intact();
        }
        catch (std::exception const& e)
        {
            fmt::print("| {} | {}: not measured: {} | | | | | |\n", shape.provider, path, e.what());
            return false;
        }
    }

    bool printFabric(FlowShape const& shape, DeviceOptions const& options)
    {
        fmt::print("## libmxl-fabrics, target and initiator in this process, {} grains, {} in flight\n\n", shape.grains, options.depth);
        fmt::print("| provider | path | grains/s | GB/s | read by the target | verified | device vs host GB/s |\n");
        fmt::print("|---|---|---|---|---|---|---|\n");
        bool measured = true;
        for (auto const& provider : options.providers)
        {
            std::optional<double> host;
            std::optional<double> device;
            measured = printFabricRow({shape, provider, PayloadLocation::host, options.depth}, "fabric host→host (baseline)", std::nullopt,
                                      host) &&
                       measured;
            measured =
                printFabricRow({shape, provider, PayloadLocation::device, options.depth}, "fabric device→device", host, device) && measured;
        }
        return measured;
    }
}

int main(int argc, char** argv)
{
    DeviceOptions options;
    std::optional<FlowShape> shape;
    try
    {
        options = parseDeviceOptions(argc, argv);
        if (options.help)
        {
            fmt::print("{}", deviceUsage());
            return exitMeasured;
        }
        shape = readFlowShape(options);
    }
    catch (std::invalid_argument const& e)
    {
        fmt::print(stderr, "mxl-device-bench: {}\n", e.what());
        return exitBadCommandLine;
    }
    if (auto const reason = missingDevice())
    {
        fmt::print("mxl-device-bench: skipped: no CUDA device ({})\n", *reason);
        return exitMeasured;
    }
    try
    {
        fmt::print("# mxl-device-bench on {}\n\n", selectDevice(options.deviceIndex));
        std::fflush(stdout);
        printWriteCommit(*shape, options.flowFile);
        printReaders(*shape);
        std::fflush(stdout);
        return printFabric(*shape, options) ? exitMeasured : exitNotMeasured;
    }
    catch (std::invalid_argument const& e)
    {
        fmt::print(stderr, "mxl-device-bench: {}\n", e.what());
        return exitBadCommandLine;
    }
    catch (std::exception const& e)
    {
        fmt::print(stderr, "mxl-device-bench: {}\n", e.what());
        return exitNotMeasured;
    }
}
