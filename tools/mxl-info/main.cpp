// mxl-info: lists the flows of an MXL domain, describes one flow, or removes the flows of crashed writers.
#include "CommandLine.hpp"
#include "DomainDirectory.hpp"
#include "DomainListing.hpp"
#include "FlowDetail.hpp"
#include "FlowId.hpp"
#include "GarbageCollection.hpp"
#include "MxlAddress.hpp"
#include "MxlHandles.hpp"
#include "TaiOffsetCheck.hpp"
#include "ToolMain.hpp"

#include <mxl/mxl.h>
#include <mxl/version.h>

#include <fmt/format.h>

#include <iostream>

namespace po = boost::program_options;

namespace mxl::tools::info
{
    namespace
    {
        constexpr char const* usage = R"(Usage: mxl-info [-d DOMAIN] [-f UUID]... [-l] [-g] [ADDRESS...]

Shows the flows of an MXL domain. Without a flow id (or with -l) it lists the flows grouped by the group of their
grouphint, each with id, role, label, media type, rate, head index, whether a writer holds it, and the latency of the
head against the TAI clock in grains (audio: samples) and milliseconds, and under each flow a line per fabrics service
carrying it (from <domain>/.mxl-services; "stale" when not updated for 3 status intervals or its process is gone).
With a flow id it prints everything the flow's shared info holds and a Services section. With -g it removes the flows
whose writers are gone (crashed or killed) and the status files of services whose process is gone.

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
                    auto address = parseMxlAddress(text);
                    targets.push_back(Target{address.domain, std::move(address.flowIds)});
                }
                return targets;
            }
            if (!values.contains("domain"))
            {
                throw ToolError{ExitCode::Usage, "missing --domain DIR or an mxl:// address (see --help)"};
            }
            Target target{values["domain"].as<std::string>(), {}};
            if (values.contains("flow"))
            {
                for (auto const& id : values["flow"].as<std::vector<std::string>>())
                {
                    target.flowIds.push_back(requireFlowId(id));
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
            warnIfTaiOffsetUnset();

            auto const targets = targetsOf(values);
            for (auto const& target : targets)
            {
                auto const domain = std::filesystem::absolute(target.domain).lexically_normal();
                requireDomainDirectory(domain);
                Instance const instance{domain};
                if (values.contains("garbage-collect"))
                {
                    collectGarbage(instance, domain);
                    continue;
                }
                if (values.contains("list") || target.flowIds.empty())
                {
                    printDomainListing(instance, domain);
                    continue;
                }
                for (auto const& id : target.flowIds)
                {
                    printFlowDetail(instance, domain, id);
                }
            }
            return ExitCode::Success;
        }
    }
}

int main(int argc, char** argv)
{
    return mxl::tools::runToolMain("mxl-info", [&] { return mxl::tools::info::run(argc, argv); });
}
