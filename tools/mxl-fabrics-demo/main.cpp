// mxl-fabrics-demo: moves an MXL flow from one domain to another over libfabric (target and initiator modes).
#include "DemoOptions.hpp"
#include "SourceRun.hpp"
#include "ToolError.hpp"

#include <client/TaiOffsetCheck.hpp>

#include <ExitRequest.hpp>

#include <fmt/format.h>

#include <cstdio>
#include <exception>

int main(int argc, char** argv)
{
    using namespace mxl::demo;
    // Scripts and tests read stdout through a pipe and wait for lines such as "Target info:".
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    mxl::tools::installExitRequestHandlers();
    try
    {
        auto const options = parseDemoOptions(argc, argv);
        if (!options)
        {
            return static_cast<int>(mxl::tools::ExitCode::Success);
        }
        mxl::client::warnIfTaiOffsetUnset();
        for (std::size_t i = 0; i < options->groupMembers.size(); ++i)
        {
            auto const& member = options->groupMembers[i];
            fmt::print("Group member: {} {} {} {}\n", i + 1, member.flowId, member.role, member.format);
        }
        auto const flows = optionsPerFlow(*options);
        if (options->initiator)
        {
            mxl::tools::setActivity("the initiators: connecting, writing grains, or closing (the fabrics library)");
            runInitiators(flows);
        }
        else
        {
            mxl::tools::setActivity("the targets: setting up, receiving grains, or closing (the fabrics library)");
            runTargets(flows);
        }
        return static_cast<int>(mxl::tools::ExitCode::Success);
    }
    catch (mxl::tools::ToolError const& error)
    {
        fmt::print(stderr, "mxl-fabrics-demo: error: {}\n", error.what());
        return static_cast<int>(error.kind());
    }
    catch (std::exception const& error)
    {
        fmt::print(stderr, "mxl-fabrics-demo: error: {}\n", error.what());
        return static_cast<int>(mxl::tools::ExitCode::Failure);
    }
}
