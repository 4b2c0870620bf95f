#include "CommandLine.hpp"

#include "ToolError.hpp"

#include <fmt/format.h>

namespace mxl::tools
{
    boost::program_options::variables_map parseCommandLine(int argc, char const* const* argv,
                                                           boost::program_options::options_description const& options,
                                                           boost::program_options::positional_options_description const& positional)
    {
        namespace po = boost::program_options;
        po::variables_map values;
        try
        {
            po::store(po::command_line_parser(argc, argv).options(options).positional(positional).run(), values);
            po::notify(values);
        }
        catch (po::error const& error)
        {
            throw ToolError{ErrorKind::Usage, fmt::format("{} (see --help)", error.what())};
        }
        return values;
    }
}
