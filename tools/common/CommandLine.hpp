// Boost.Program_options parsing with the tools' error convention: a bad command line is a ToolError(Usage) whose
// message names the option and points at --help.
#pragma once

#include <boost/program_options.hpp>

namespace mxl::tools
{
    boost::program_options::variables_map parseCommandLine(int argc, char const* const* argv,
                                                           boost::program_options::options_description const& options,
                                                           boost::program_options::positional_options_description const& positional = {});
}
