// The outermost frame of every tool: runs the program body and turns any escaping error into one line on stderr
// ("<program>: <message>") and the matching exit status.
#pragma once

#include "ToolError.hpp"

#include <functional>
#include <string_view>

namespace mxl::tools
{
    int runToolMain(std::string_view programName, std::function<ExitCode()> const& body);
}
