// mxl-info: lists the flows of an MXL domain, describes one flow, or removes the flows of crashed writers.
#include "CommandLine.hpp"
#include "DomainListing.hpp"
#include "ExitRequest.hpp"
#include "FlowDetail.hpp"
#include "FlowPicture.hpp"
#include "GarbageCollection.hpp"
#include "TicketListing.hpp"
#include "ToolMain.hpp"
#include <client/DomainDirectory.hpp>
#include <client/FlowId.hpp>
#include <client/MxlAddress.hpp>
#include <client/MxlHandles.hpp>
#include <client/TaiOffsetCheck.hpp>

#include <mxl/mxl.h>
#include <mxl/version.h>

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <thread>

#include <unistd.h>

namespace po = boost::program_options;

namespace mxl::tools::info
{
    namespace
    {
        constexpr char const* usage = R"(Usage: mxl-info [-d DOMAIN] [-f UUID]... [-l] [-g] [-w [SECONDS]] [ADDRESS...]
       mxl-info -d DOMAIN --snapshot FLOW[@INDEX] FILE.png
       mxl-info --tickets etcd://HOST:PORT[/PREFIX]

Shows the flows of an MXL domain. Without a flow id (or with -l) it lists the flows grouped by the group of their
grouphint, each with id, role, label, media type, rate, head index, whether a writer holds it, and the latency of the
head against the TAI clock in grains (audio: samples) and milliseconds, and under each flow a line per fabrics service
carrying it (from <domain>/.mxl-services; "stale" when not updated for 3 status intervals or its process is gone).
With a flow id it prints everything the flow's shared info holds and a Services section. With -g it removes the flows
whose writers are gone (crashed or killed) and the status files of services whose process is gone.

With --watch it shows the list or the flows described again every SECONDS (default 1) until interrupted (SIGINT,
SIGTERM), clearing the terminal first when the output is one; in the list, each audio flow gains a one-line level
meter over its last 100 ms: a block per channel (one step per 6 dB from -48 dBFS; '.' below) and the loudest
channel in dBFS.

With --tickets it lists the tickets fabrics targets publish in a facility's etcd (key /mxl/tickets/<domain>/<flow
id>, or everything under PREFIX): key, epoch, provider, regions and lease. No domain is needed.

With --snapshot it writes a PNG picture of a flow. Video (v210, v210a): the grain INDEX (default: the head), as 8-bit
RGB converted with the flow's colorspace (BT709, BT601, BT2020, BT2100; narrow range), v210a with its key as alpha,
interlaced flows one field. Audio: the second of samples ending at INDEX (default: the head; at most half the ring),
one strip per channel with the waveform's envelope and the peak level marked in red, and the peak of each channel
printed. The grain or samples are copied and then checked not to have been overwritten during the copy.

ADDRESS is mxl:///<domain-path>[?id=<uuid>&id=<uuid>...] (three slashes: only local domains are supported). It
replaces -d and -f; every id given is described in turn.

Exit status: 0 success, 1 an mxl call failed, 2 bad command line (unknown option, malformed address, invalid
UUID), 3 the domain is missing or cannot be opened, 4 a named flow does not exist.

Options)";

        po::options_description describeOptions()
        {
            po::options_description options{usage, 120, 60};
            // clang-format off
            options.add_options()
                ("domain,d", po::value<std::string>()->value_name("DIR"), "domain directory, e.g. /dev/shm/mxl")
                ("flow,f", po::value<std::vector<std::string>>()->value_name("UUID"),
                    "flow to describe in detail (repeatable)")
                ("list,l", "list the flows of the domain, even when flow ids are given")
                ("watch,w", po::value<double>()->implicit_value(1.0)->value_name("SECONDS"),
                    "show the list (with audio level meters) or the described flows again every SECONDS until interrupted")
                ("tickets", po::value<std::string>()->value_name("etcd://HOST:PORT[/PREFIX]"),
                    "list the tickets published in etcd (all under /mxl/tickets/ without PREFIX)")
                ("snapshot", po::value<std::vector<std::string>>()->multitoken()->value_name("FLOW[@INDEX] FILE.png"),
                    "write a PNG picture of a grain of a video flow or of the last second of an audio flow (see above)")
                ("garbage-collect,g", "remove the flows no writer holds any more and the status files of stopped services, and say which")
                ("version", "print the versions of mxl-info and of the loaded libmxl, and exit")
                ("help,h", "show this help and exit")
                ("address", po::value<std::vector<std::string>>()->value_name("ADDRESS"), "mxl:// address (positional)");
            // clang-format on
            return options;
        }

        struct Target
        {
            std::filesystem::path domain;
            std::vector<std::string> flowIds;
        };

        // Addresses replace -d and -f (docs/Addressability); without them, -d is required.
        std::vector<Target> targetsOf(po::variables_map const& values)
        {
            std::vector<Target> targets;
            if (values.contains("address"))
            {
                for (auto const& text : values["address"].as<std::vector<std::string>>())
                {
                    auto address = client::parseMxlAddress(text);
                    targets.push_back(Target{address.domain, std::move(address.flowIds)});
                }
                return targets;
            }
            if (!values.contains("domain"))
            {
                throw ToolError{ErrorKind::Usage, "missing --domain DIR or an mxl:// address (see --help)"};
            }
            Target target{values["domain"].as<std::string>(), {}};
            if (values.contains("flow"))
            {
                for (auto const& id : values["flow"].as<std::vector<std::string>>())
                {
                    target.flowIds.push_back(client::requireFlowId(id));
                }
            }
            targets.push_back(std::move(target));
            return targets;
        }

        void printVersion()
        {
            mxlVersionType library{};
            auto const loaded = mxlGetVersion(&library) == MXL_STATUS_OK && library.full != nullptr ? library.full : "unknown";
            fmt::print("mxl-info {}\nlibmxl {}\n", MXL_VERSION_FULL, loaded);
        }

        // One pass over every target: what mxl-info prints once, or once per --watch period.
        void show(std::vector<Target> const& targets, po::variables_map const& values, bool withLevels)
        {
            for (auto const& target : targets)
            {
                auto const domain = std::filesystem::absolute(target.domain).lexically_normal();
                client::requireDomainDirectory(domain);
                client::Instance const instance{domain};
                if (values.contains("snapshot"))
                {
                    writeFlowPicture(instance, domain, parsePictureRequest(values["snapshot"].as<std::vector<std::string>>()));
                    continue;
                }
                if (values.contains("garbage-collect"))
                {
                    collectGarbage(instance, domain);
                    continue;
                }
                if (values.contains("list") || target.flowIds.empty())
                {
                    printDomainListing(instance, domain, withLevels);
                    continue;
                }
                for (auto const& id : target.flowIds)
                {
                    printFlowDetail(instance, domain, id);
                }
            }
        }

        void watch(std::vector<Target> const& targets, po::variables_map const& values, double periodSeconds)
        {
            if (!(periodSeconds >= 0.1 && periodSeconds <= 3600.0))
            {
                badInput("--watch {}: the period must be 0.1 to 3600 seconds", periodSeconds);
            }
            installExitRequestHandlers();
            bool const terminal = ::isatty(STDOUT_FILENO) == 1;
            auto const period =
                std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>{periodSeconds});
            auto next = std::chrono::steady_clock::now();
            while (!exitRequested())
            {
                if (terminal)
                {
                    fmt::print("\x1b[H\x1b[2J");
                }
                show(targets, values, true);
                std::fflush(stdout);
                next += period;
                // Slices, so that an interrupt ends the wait promptly.
                while (!exitRequested() && std::chrono::steady_clock::now() < next)
                {
                    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(std::chrono::milliseconds{50},
                                                                                              next - std::chrono::steady_clock::now()));
                }
            }
        }

        ExitCode run(int argc, char const* const* argv)
        {
            auto const options = describeOptions();
            po::positional_options_description positional;
            positional.add("address", -1);
            auto const values = parseCommandLine(argc, argv, options, positional);
            if (values.contains("help"))
            {
                std::cout << options << '\n';
                return ExitCode::Success;
            }
            if (values.contains("version"))
            {
                printVersion();
                return ExitCode::Success;
            }
            if (values.contains("tickets"))
            {
                printTicketListing(values["tickets"].as<std::string>());
                return ExitCode::Success;
            }
            client::warnIfTaiOffsetUnset();

            auto const targets = targetsOf(values);
            if (!values.contains("watch"))
            {
                show(targets, values, false);
                return ExitCode::Success;
            }
            if (values.contains("snapshot") || values.contains("garbage-collect"))
            {
                badInput("--watch repeats the list or the described flows; it cannot be combined with --snapshot or -g");
            }
            watch(targets, values, values["watch"].as<double>());
            return ExitCode::Success;
        }
    }
}

int main(int argc, char** argv)
{
    return mxl::tools::runToolMain("mxl-info", [&] { return mxl::tools::info::run(argc, argv); });
}
