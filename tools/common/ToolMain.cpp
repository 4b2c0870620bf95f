#include "ToolMain.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <exception>

namespace mxl::tools
{
    int runToolMain(std::string_view programName, std::function<ExitCode()> const& body)
    {
        try
        {
            return static_cast<int>(body());
        }
        catch (ToolError const& error)
        {
            fmt::print(stderr, "{}: {}\n", programName, error.what());
            return static_cast<int>(error.kind());
        }
        catch (std::exception const& error)
        {
            fmt::print(stderr, "{}: {}\n", programName, error.what());
            return static_cast<int>(ExitCode::Failure);
        }
    }
}
