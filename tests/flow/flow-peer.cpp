// A separate process for the multi-process flow tests: writes or reads a flow through the public C API and reports
// what it did on stdout, one line per event, for the test to check.
//
//   flow-peer write --domain D --flow FILE [--start I] [--count N] [--delay-ms MS] [--interval-ms MS] [--slices K] [--hold-ms MS]
//       prints "created <0|1>", waits --delay-ms, then prints "wrote <index> <checksum> <TAI ns before the last commit>" per
//       grain and "done"; holds the flow for --hold-ms (forever when negative: kill it) and releases it. --slices
//       commits each grain in K parts. --start defaults to the current index.
//   flow-peer read --domain D --id ID --start I [--count N] [--timeout-ms MS] [--min-slices K] [--ro-bind]
//       prints "ready", then per index "grain <index> <status> <validSlices> <flags> <checksum> <head> <TAI ns>", the
//       time being when the read returned; checksum is 0 unless the status is 0.
//   flow-peer race --domain D --flow FILE --at TAI_NS --slot S [--hold-ms MS]
//       creates the writer at TAI time --at, prints "created <0|1>", stamps its pid into grain S's header, waits
//       --hold-ms, prints "slots <pid in grain 1> <pid in grain 2>" and releases.
//   flow-peer create --domain D --flow FILE [--ro-bind]
//       prints "status <mxlStatus of mxlCreateFlowWriter>".
// write and create pass --options JSON to mxlCreateFlowWriter. A device flow's grains (options "payloadLocation":
// "device") are written and read through mxlFlowWriterCopyToDevice and mxlFlowReaderCopyToHost, and checksummed in
// host memory; read then also prints "payload <device address>" once, before its first grain line.
// --ro-bind makes the domain a read-only bind mount in a private mount namespace first (prints "skip <reason>" and
// exits 77 when the kernel refuses). Exit status: 0 on success, 1 on a failed call, 2 on bad arguments.
#include "Checksum.hpp"
#include "GrainPattern.hpp"
#include "TempDomain.hpp"

#include <mxl/device.h>
#include <mxl/flow.h>
#include <mxl/mxl.h>
#include <mxl/time.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <map>
#include <sched.h>
#include <string>
#include <string_view>
#include <sys/mount.h>
#include <unistd.h>
#include <vector>

namespace
{
    constexpr int exitFailure = 1;
    constexpr int exitUsage = 2;
    constexpr int exitSkip = 77;

    using Options = std::map<std::string, std::string>;

    std::string const& option(Options const& options, std::string const& name)
    {
        auto const found = options.find(name);
        if (found == options.end())
        {
            fmt::print(stderr, "flow-peer: --{} is required\n", name);
            std::exit(exitUsage);
        }
        return found->second;
    }

    std::int64_t number(Options const& options, std::string const& name, std::int64_t fallback)
    {
        auto const found = options.find(name);
        return found == options.end() ? fallback : std::stoll(found->second);
    }

    void say(std::string const& line)
    {
        fmt::print("{}\n", line);
        std::fflush(stdout);
    }

    void bindDomainReadOnly(std::string const& domain)
    {
        auto const refuse = [](char const* step)
        {
            say(fmt::format("skip {}: {}", step, std::strerror(errno)));
            std::exit(exitSkip);
        };
        if (::unshare(CLONE_NEWNS) != 0)
        {
            refuse("unshare(CLONE_NEWNS)");
        }
        // Private first, so that nothing done here propagates to the test's own mount namespace.
        if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
        {
            refuse("making mounts private");
        }
        if (::mount(domain.c_str(), domain.c_str(), nullptr, MS_BIND, nullptr) != 0)
        {
            refuse("bind-mounting the domain");
        }
        if (::mount(nullptr, domain.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr) != 0)
        {
            refuse("remounting the domain read-only");
        }
    }

    struct Instance
    {
        explicit Instance(Options const& options)
            : handle{mxlCreateInstance(option(options, "domain").c_str(), nullptr)}
        {
            if (handle == nullptr)
            {
                say("error mxlCreateInstance");
                std::exit(exitFailure);
            }
        }

        ~Instance()
        {
            mxlDestroyInstance(handle);
        }

        Instance(Instance const&) = delete;
        Instance& operator=(Instance const&) = delete;

        mxlInstance handle;
    };

    void check(mxlStatus status, char const* call)
    {
        if (status != MXL_STATUS_OK)
        {
            say(fmt::format("error {} {}", call, static_cast<int>(status)));
            std::exit(exitFailure);
        }
    }

    void holdFor(std::int64_t holdMs)
    {
        if (holdMs < 0)
        {
            while (true)
            {
                ::pause();
            }
        }
        mxlSleepForNs(static_cast<std::uint64_t>(holdMs) * 1'000'000);
    }

    char const* writerOptions(Options const& options)
    {
        auto const found = options.find("options");
        return found == options.end() ? nullptr : found->second.c_str();
    }

    bool onDevice(mxlFlowConfigInfo const& config)
    {
        return config.common.payloadLocation == MXL_PAYLOAD_LOCATION_DEVICE_MEMORY;
    }

    mxlFlowWriter createWriter(Instance const& instance, Options const& options, mxlFlowConfigInfo& config)
    {
        auto const definition = mxl::test::readFile(option(options, "flow"));
        mxlFlowWriter writer = nullptr;
        bool created = false;
        check(mxlCreateFlowWriter(instance.handle, definition.c_str(), writerOptions(options), &writer, &config, &created),
              "mxlCreateFlowWriter");
        say(fmt::format("created {}", created ? 1 : 0));
        return writer;
    }

    int write(Options const& options)
    {
        Instance instance{options};
        mxlFlowConfigInfo config{};
        auto* const writer = createWriter(instance, options, config);
        auto const count = number(options, "count", 1);
        auto const intervalMs = number(options, "interval-ms", 0);
        auto const parts = static_cast<std::uint16_t>(number(options, "slices", 1));
        auto const start =
            static_cast<std::uint64_t>(number(options, "start", static_cast<std::int64_t>(mxlGetCurrentIndex(&config.common.grainRate))));
        for (auto index = start; index < start + static_cast<std::uint64_t>(count); ++index)
        {
            mxlGrainInfo grain;
            std::uint8_t* payload = nullptr;
            check(mxlFlowWriterOpenGrain(writer, index, &grain, &payload), "mxlFlowWriterOpenGrain");
            // A device grain is painted in host memory and copied: `filled` is what the checksum covers.
            std::vector<std::uint8_t> hostGrain(onDevice(config) ? grain.grainSize : 0);
            auto* const filled = onDevice(config) ? hostGrain.data() : payload;
            mxl::test::fillGrainPattern(filled, grain.grainSize, index);
            if (onDevice(config))
            {
                check(mxlFlowWriterCopyToDevice(writer, payload, filled, grain.grainSize), "mxlFlowWriterCopyToDevice");
            }
            auto finalCommitNs = std::uint64_t{0};
            for (std::uint16_t part = 1; part <= parts; ++part)
            {
                grain.validSlices = static_cast<std::uint16_t>(grain.totalSlices * part / parts);
                finalCommitNs = mxlGetTime();
                check(mxlFlowWriterCommitGrain(writer, &grain), "mxlFlowWriterCommitGrain");
            }
            say(fmt::format("wrote {} {} {}", index, mxl::test::fnv1a(filled, grain.grainSize), finalCommitNs));
            mxlSleepForNs(static_cast<std::uint64_t>(intervalMs) * 1'000'000);
        }
        say("done");
        holdFor(number(options, "hold-ms", 0));
        check(mxlReleaseFlowWriter(instance.handle, writer), "mxlReleaseFlowWriter");
        return 0;
    }

    int read(Options const& options)
    {
        Instance instance{options};
        mxlFlowReader reader = nullptr;
        check(mxlCreateFlowReader(instance.handle, option(options, "id").c_str(), nullptr, &reader), "mxlCreateFlowReader");
        say("ready");
        auto const start = static_cast<std::uint64_t>(std::stoll(option(options, "start")));
        auto const count = static_cast<std::uint64_t>(number(options, "count", 1));
        auto const timeoutNs = static_cast<std::uint64_t>(number(options, "timeout-ms", 0)) * 1'000'000;
        auto const minSlices = static_cast<std::uint16_t>(number(options, "min-slices", MXL_GRAIN_VALID_SLICES_ALL));
        mxlFlowConfigInfo config{};
        check(mxlFlowReaderGetConfigInfo(reader, &config), "mxlFlowReaderGetConfigInfo");
        bool addressShown = false;
        for (auto index = start; index < start + count; ++index)
        {
            mxlGrainInfo grain{};
            std::uint8_t* payload = nullptr;
            auto const status = mxlFlowReaderGetGrainSlice(reader, index, minSlices, timeoutNs, &grain, &payload);
            auto const returnedNs = mxlGetTime();
            mxlFlowRuntimeInfo runtime{};
            mxlFlowReaderGetRuntimeInfo(reader, &runtime);
            std::vector<std::uint8_t> hostGrain;
            if (status == MXL_STATUS_OK && onDevice(config))
            {
                if (!addressShown)
                {
                    say(fmt::format("payload {}", static_cast<void const*>(payload)));
                    addressShown = true;
                }
                hostGrain.resize(grain.grainSize);
                check(mxlFlowReaderCopyToHost(reader, hostGrain.data(), payload, grain.grainSize), "mxlFlowReaderCopyToHost");
                payload = hostGrain.data();
            }
            auto const checksum = status == MXL_STATUS_OK ? mxl::test::fnv1a(payload, grain.grainSize) : 0;
            say(fmt::format("grain {} {} {} {} {} {} {}", index, static_cast<int>(status), grain.validSlices, grain.flags, checksum,
                            runtime.headIndex, returnedNs));
        }
        check(mxlReleaseFlowReader(instance.handle, reader), "mxlReleaseFlowReader");
        return 0;
    }

    int race(Options const& options)
    {
        Instance instance{options};
        mxlSleepUntil(static_cast<std::uint64_t>(std::stoll(option(options, "at"))));
        mxlFlowConfigInfo config{};
        auto* const writer = createWriter(instance, options, config);
        auto const slot = static_cast<std::uint64_t>(std::stoll(option(options, "slot")));
        mxlGrainInfo grain;
        std::uint8_t* payload = nullptr;
        check(mxlFlowWriterOpenGrain(writer, slot, &grain, &payload), "mxlFlowWriterOpenGrain");
        auto const pid = static_cast<std::uint32_t>(::getpid());
        std::memcpy(grain.reserved, &pid, sizeof pid);
        grain.validSlices = grain.totalSlices;
        check(mxlFlowWriterCommitGrain(writer, &grain), "mxlFlowWriterCommitGrain");
        holdFor(number(options, "hold-ms", 0));
        std::uint32_t pids[2] = {};
        for (std::uint64_t index = 1; index <= 2; ++index)
        {
            check(mxlFlowWriterGetGrainInfo(writer, index, &grain), "mxlFlowWriterGetGrainInfo");
            std::memcpy(&pids[index - 1], grain.reserved, sizeof pids[0]);
        }
        say(fmt::format("slots {} {}", pids[0], pids[1]));
        check(mxlReleaseFlowWriter(instance.handle, writer), "mxlReleaseFlowWriter");
        return 0;
    }

    int create(Options const& options)
    {
        Instance instance{options};
        auto const definition = mxl::test::readFile(option(options, "flow"));
        mxlFlowWriter writer = nullptr;
        auto const status = mxlCreateFlowWriter(instance.handle, definition.c_str(), writerOptions(options), &writer, nullptr, nullptr);
        say(fmt::format("status {}", static_cast<int>(status)));
        return 0;
    }

    struct Command
    {
        std::string_view name;
        int (*run)(Options const& options);
    };

    constexpr std::array<Command, 4> commands{{
        {"write", write},
        {"read", read},
        {"race", race},
        {"create", create},
    }};
}

int main(int argc, char** argv)
{
    if (argc < 2)
    {
        fmt::print(stderr, "usage: flow-peer write|read|race|create --option value...\n");
        return exitUsage;
    }
    Options options;
    for (int i = 2; i < argc; ++i)
    {
        std::string const name = argv[i];
        if (name.rfind("--", 0) != 0)
        {
            fmt::print(stderr, "flow-peer: unexpected argument '{}'\n", name);
            return exitUsage;
        }
        auto const isFlag = i + 1 >= argc || std::string{argv[i + 1]}.rfind("--", 0) == 0;
        options[name.substr(2)] = isFlag ? "" : argv[++i];
    }
    if (options.contains("ro-bind"))
    {
        bindDomainReadOnly(option(options, "domain"));
    }
    std::string_view const command = argv[1];
    auto const found = std::ranges::find(commands, command, &Command::name);
    if (found == commands.end())
    {
        fmt::print(stderr, "flow-peer: unknown command '{}'\n", command);
        return exitUsage;
    }
    return found->run(options);
}
