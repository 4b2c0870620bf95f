#include "DeviceOptions.hpp"

#include "BenchCommandLine.hpp"

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <string_view>

namespace po = boost::program_options;

namespace mxl::bench::device
{
    namespace
    {
        constexpr std::uint32_t mostGrains = 1'000'000;
        constexpr std::uint32_t deepest = 64;

        constexpr char const* synopsis =
            R"usage(Usage: mxl-device-bench [--flow FILE] [--device N] [--grains N] [--providers tcp,shm] [--depth N]

Device-memory flows (docs/device-flows.md) against the CUDA copies and host flows they replace, each figure beside
its baseline measured in the same run, on CUDA device --device. Every flow lives in a temporary domain under /dev/shm
(history 200 ms), removed at the end.

Write + commit (one thread): a device flow (writer option {"payloadLocation":"device","deviceIndex":N}) of the
--flow format takes --grains grains, each mxlFlowWriterOpenGrain, cudaMemcpy device-to-device of the whole payload
from a source cudaMalloc buffer, and mxlFlowWriterCommitGrain; the baseline is the bare cudaMemcpy of the same bytes
into a ring of as many cudaMalloc buffers as the flow has grains (one buffer would stay in the GPU's L2 cache). Both
synchronise the device after each copy: a grain must be complete before its commit tells the readers.
Columns: grains/s, GB/s (10^9 payload bytes), microseconds per grain, ratio to the baseline's GB/s.

Reader (same process): mxlFlowReaderGetGrain of a committed grain, --grains calls, on the device flow against a host
flow of the same format. Columns: median / p99 microseconds, ratio of the medians.

Fabric: for each provider of --providers, a libmxl-fabrics target (its own thread, blocking reads) and initiator in
this process, tcp on 127.0.0.1 or shm, move --grains grains of the --flow format host flow -> host flow (baseline),
then device flow -> device flow, at most --depth grains sent and not yet read by the target. The initiator stamps
each grain's index into its first 8 bytes (every ring slot holds a pattern of its own, written once). After the
last grain, every grain still in the target's ring (all but one) is copied back to the host (cudaMemcpy for a device
flow) and compared byte for byte with what was sent.
Columns: grains/s and GB/s (payload bytes) on the target's clock, from its read of the last of the first quarter of
the grains (the warm-up) to its read of the last grain; grains the target read of those sent; grains verified of
those checked; ratio of device to host GB/s. A setup that libmxl-fabrics refuses (device flows before they can cross
the fabric) is a row "refused: <its message>".

Exit status: 0 every row was measured or refused, and also when this process sees no CUDA device: then the only line
is "mxl-device-bench: skipped: no CUDA device (<the runtime's words>)"; 1 a row could not be measured (it says why)
or a grain did not arrive intact; 2 bad command line.

Options)usage";

        po::options_description describeOptions(DeviceOptions& options, std::string& providers)
        {
            po::options_description description{synopsis, 120, 60};
            // clang-format off
            description.add_options()
                ("help,h", "print this help and exit")
                ("flow", po::value(&options.flowFile)->value_name("FILE"),
                    "flow definition of a video or data flow (default: the source tree's flows/v210_1080p50.json)")
                ("device", po::value(&options.deviceIndex)->value_name("N"), "CUDA device ordinal of this process (default 0)")
                ("grains", po::value(&options.grains)->value_name("N"), "grains per row, 16 to 1000000 (default 500)")
                ("providers", po::value(&providers)->value_name("LIST"), "libfabric providers of the fabric rows, tcp and/or shm (default tcp,shm)")
                ("depth", po::value(&options.depth)->value_name("N"), "fabric grains in flight, 1 to 64 (default 4)");
            // clang-format on
            return description;
        }
    }

    DeviceOptions parseDeviceOptions(int argc, char** argv)
    {
        DeviceOptions options;
        options.flowFile = MXL_DEVICE_BENCH_FLOWS "/v210_1080p50.json";
        std::string providers = "tcp,shm";
        auto const description = describeOptions(options, providers);
        auto const values = parseCommandLine(argc, argv, description);
        if (values.contains("help"))
        {
            options.help = true;
            return options;
        }
        options.providers = providerList(providers);
        if (!std::filesystem::is_regular_file(options.flowFile))
        {
            throw std::invalid_argument{fmt::format("--flow '{}' is not a file", options.flowFile)};
        }
        if (options.deviceIndex < 0)
        {
            throw std::invalid_argument{fmt::format("--device {}: expected a CUDA ordinal from 0", options.deviceIndex)};
        }
        if (options.grains < 16 || options.grains > mostGrains)
        {
            throw std::invalid_argument{fmt::format("--grains {}: expected 16 to {}", options.grains, mostGrains)};
        }
        if (options.depth < 1 || options.depth > deepest)
        {
            throw std::invalid_argument{fmt::format("--depth {}: expected 1 to {}", options.depth, deepest)};
        }
        return options;
    }

    std::string deviceUsage()
    {
        DeviceOptions options;
        std::string providers;
        std::ostringstream text;
        text << describeOptions(options, providers);
        return text.str();
    }
}
