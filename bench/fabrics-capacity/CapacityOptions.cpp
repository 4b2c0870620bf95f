#include "CapacityOptions.hpp"

#include "BenchCommandLine.hpp"

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string_view>

namespace po = boost::program_options;

namespace mxl::bench::capacity
{
    namespace
    {
        constexpr std::uint32_t mostFlows = 64;

        constexpr char const* synopsis =
            R"(Usage: mxl-fabrics-capacity-bench [--providers tcp,shm] [--formats 1080p59.94,2160p59.94,audio16]
                                   [--max-flows N] [--seconds S] [--warmup S] [--paths mxl,mxl-redundant,raw] [--no-fan-out]
                                   [--demo PATH] [--test-source PATH] [--flows DIR]

Real-time capacity: how many independent live flows this host bridges with zero late and zero lost grains, through
mxl beside plain libfabric (raw), measured in the same run. For each provider and format, N is raised from 1 to
--max-flows, separately for each path, until a run has a late or lost grain; the table has one row per N with both
paths side by side (a path that already failed at a smaller N shows "-"), and a summary line per provider and format
gives the largest N with zero late and zero lost for each path.

mxl: the real tools, as processes from the build tree. Per flow k: mxl-test-source --prerendered writes the flow (its
own copy of flows/<definition> with a fresh UUID) in source domain k, an mxl-fabrics-demo target creates it in target
domain k (tcp: 127.0.0.1, a free port each; shm: a name unique to the process) and prints its ticket, an
mxl-fabrics-demo initiator sends it there, and a reader thread of this bench follows the target's flow. Every domain
is a temporary directory under /dev/shm, removed at the end.
raw: per flow, a target process and an initiator process forked from this bench, with the provider and endpoint type
the library uses (tcp: FI_EP_MSG; shm: FI_EP_RDM) and the raw transport of mxl-fabrics-bench: the initiator sleeps
until unit i's TAI timestamp, posts one fi_writemsg of the 8192-byte header + payload with FI_DELIVERY_COMPLETE |
FI_REMOTE_CQ_DATA, rings the target's doorbell (the index, in shared memory) and polls its completion queue until the
write completed; the target waits for the doorbell, then polls its completion queue until the unit is there. Both
wait as libmxl-fabrics does on shm (16 yields, then sleeps of 20 µs growing to 200 µs). Audio: one write of 30,720
bytes (480 samples of 16 float32 channels) + header per 10 ms, where mxl moves the batch into the channel rings.
fan-out rows (flows "1->N", from 1->2; 1->1 is the first row's single flow): one source and one initiator feeding N
targets of the same flow (mxl: one mxl-fabrics-demo -i with N tickets; raw: one initiator process with a connection
to each of N target processes); they have their own summary line.
mxl-redundant (only when --paths names it): mxl with every flow over two redundant fabric paths: each mxl-fabrics-demo
target takes --path twice (tcp: 127.0.0.1 and ::1, so a host without IPv6 loopback cannot measure it; shm: two
endpoints), receives each path into a private path flow and commits the first complete arrival of every grain to the
real flow, which the reader follows; the initiator holds both tickets and sends every grain over both. Against the
mxl columns of the same row it gives what the second path costs in CPU and in latency to the first arrival.

A unit is a grain (video) or a batch of 480 samples, 10 ms (audio). After the warm-up (--warmup seconds after every
initiator connected), a window of --seconds seconds is measured: the units whose TAI timestamp falls in it.

Columns (each path of --paths: mxl, mxl-redundant, raw):
  provider, format   libfabric provider; flow format
  flows              N independent flows, or 1->N for fan-out
  late               mxl: grains the sources wrote late or as invalid (mxl-test-source late + invalid) and jumps of
                     the initiators (mxl-fabrics-demo late), as the tools' counters grew between their first stats
                     line after the window opened and their first after it closed. raw: units posted more than half
                     a unit period after their timestamp
  lost               mxl: the initiators' lost + skipped + invalidated (same counters), plus units a target reader
                     saw flagged invalid or not within 200 ms of their timestamp. raw: units of the window that never
                     reached their target (within 200 ms after the window). Late and lost count events: one grain can
                     appear in more than one counter
  units              units the targets received in the window (all flows)
  latency p50/p99    microseconds from a unit's TAI timestamp (audio: its last sample's) to its arrival: mxl, when
                     the target reader's mxlFlowReaderGetGrain/GetSamples returned; raw, when the target's poll saw
                     its completion
  CPU init/tgt       user + system CPU of the initiator and of the target processes over the window (from
                     /proc/<pid>/stat), per flow (fan-out: per target), in % of one core; the sources and the
                     bench's readers are not counted
A row that could not be measured says why in place of its figures.

Exit status: 0 every row was measured (late or lost grains are a result, not an error); 1 a row could not be
measured; 2 bad command line; 130 interrupted by SIGINT/SIGTERM (every child is stopped and every temporary file
removed first).

Options)";

        po::options_description describeOptions(CapacityOptions& options, std::string& providers, std::string& formats, std::string& paths)
        {
            po::options_description description{synopsis, 120, 60};
            // clang-format off
            description.add_options()
                ("help,h", "print this help and exit")
                ("providers", po::value(&providers)->value_name("LIST"), "libfabric providers, tcp and/or shm (default tcp,shm)")
                ("formats", po::value(&formats)->value_name("LIST"),
                    "flow formats: 1080p59.94 (flows/v210_1080p59.94.json), 2160p59.94 (flows/v210_2160p59.94.json), audio16 "
                    "(flows/audio_48k_16ch.json) (default all three)")
                ("max-flows", po::value(&options.maxFlows)->value_name("N"), "largest N tried, 1 to 64 (default 8)")
                ("seconds", po::value(&options.seconds)->value_name("S"), "measured window per run, 1 to 3600 s (default 20)")
                ("warmup", po::value(&options.warmupSeconds)->value_name("S"),
                    "seconds between every initiator connected and the window, 0 to 600 (default 2)")
                ("paths", po::value(&paths)->value_name("LIST"), "mxl, mxl-redundant and/or raw (default mxl,raw)")
                ("fan-out", "include the fan-out rows (the default)")
                ("no-fan-out", "leave the fan-out rows out")
                ("demo", po::value(&options.tools.demo)->value_name("PATH"), "mxl-fabrics-demo to run (default: this build's)")
                ("test-source", po::value(&options.tools.testSource)->value_name("PATH"), "mxl-test-source to run (default: this build's)")
                ("flows", po::value(&options.tools.flowsDirectory)->value_name("DIR"),
                    "directory of the flow definitions (default: the source tree's flows/)");
            // clang-format on
            return description;
        }

        void requireExecutable(char const* option, std::string const& path)
        {
            std::error_code error;
            auto const status = std::filesystem::status(path, error);
            if (error || !std::filesystem::is_regular_file(status) ||
                (status.permissions() & std::filesystem::perms::owner_exec) == std::filesystem::perms::none)
            {
                throw std::invalid_argument{
                    fmt::format("{} '{}' is not an executable file (build it, or name it with {})", option, path, option)};
            }
        }
    }

    CapacityOptions parseCapacityOptions(int argc, char** argv)
    {
        CapacityOptions options;
        options.tools = {MXL_CAPACITY_DEMO, MXL_CAPACITY_TEST_SOURCE, MXL_CAPACITY_FLOWS};
        std::string providers = "tcp,shm";
        std::string formats = fmt::format("{}", fmt::join(mediaFormatNames(), ","));
        std::string paths = "mxl,raw";
        auto const description = describeOptions(options, providers, formats, paths);
        auto const values = parseCommandLine(argc, argv, description);
        if (values.contains("help"))
        {
            options.help = true;
            return options;
        }

        options.providers = providerList(providers);
        for (auto const& name : splitList("--formats", formats))
        {
            auto format = mediaFormatNamed(name);
            if (!format)
            {
                throw std::invalid_argument{fmt::format("--formats: '{}' is not one of {}", name, fmt::join(mediaFormatNames(), ", "))};
            }
            options.formats.push_back(*format);
        }
        auto const named = splitList("--paths", paths);
        for (auto const& name : named)
        {
            if (std::ranges::none_of(allPaths, [&](Path path) { return pathName(path) == name; }))
            {
                throw std::invalid_argument{fmt::format("--paths: '{}' is not mxl, mxl-redundant or raw", name)};
            }
        }
        options.paths.clear();
        std::ranges::copy_if(allPaths, std::back_inserter(options.paths),
                             [&](Path path) { return std::ranges::find(named, pathName(path)) != named.end(); });
        if (options.maxFlows < 1 || options.maxFlows > mostFlows)
        {
            throw std::invalid_argument{fmt::format("--max-flows {}: expected 1 to {}", options.maxFlows, mostFlows)};
        }
        if (!(options.seconds >= 1.0 && options.seconds <= 3600.0))
        {
            throw std::invalid_argument{fmt::format("--seconds {}: expected 1 to 3600", options.seconds)};
        }
        if (!(options.warmupSeconds >= 0.0 && options.warmupSeconds <= 600.0))
        {
            throw std::invalid_argument{fmt::format("--warmup {}: expected 0 to 600", options.warmupSeconds)};
        }
        if (values.contains("fan-out") && values.contains("no-fan-out"))
        {
            throw std::invalid_argument{"--fan-out and --no-fan-out contradict each other"};
        }
        options.fanOut = !values.contains("no-fan-out");
        if (std::ranges::any_of(options.paths, [](Path path) { return path != Path::raw; }))
        {
            requireExecutable("--demo", options.tools.demo);
            requireExecutable("--test-source", options.tools.testSource);
            for (auto const& format : options.formats)
            {
                auto const definition = std::filesystem::path{options.tools.flowsDirectory} / format.definitionFile;
                if (!std::filesystem::is_regular_file(definition))
                {
                    throw std::invalid_argument{fmt::format("--flows '{}' has no {} for format {}", options.tools.flowsDirectory,
                                                            format.definitionFile, format.name)};
                }
            }
        }
        return options;
    }

    std::string capacityUsage()
    {
        CapacityOptions options;
        std::string providers;
        std::string formats;
        std::string paths;
        std::ostringstream text;
        text << describeOptions(options, providers, formats, paths) << '\n';
        return text.str();
    }
}
