// What the bench programs' command lines share: Boost's parse with its errors pointing at --help, and the
// comma-separated lists of their options (--providers, --formats, --paths).
#pragma once

#include <boost/program_options.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace mxl::bench
{
    // Throws std::invalid_argument with Boost's words and "(see --help)".
    [[nodiscard]] boost::program_options::variables_map parseCommandLine(int argc, char** argv,
                                                                         boost::program_options::options_description const& description);

    // The entries of `text` between commas; std::invalid_argument naming `option` when there is none.
    [[nodiscard]] std::vector<std::string> splitList(std::string_view option, std::string_view text);

    // --providers: each entry tcp or shm.
    [[nodiscard]] std::vector<std::string> providerList(std::string_view text);
}
