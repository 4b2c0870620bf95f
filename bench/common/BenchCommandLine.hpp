// What the bench programs' command lines share: Boost's parse with its errors pointing at --help, and the
// comma-separated lists of their options (--providers, --formats, --paths).
#pragma once

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <optional>
#include <stdexcept>
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

    // The start of a bench's main: `parse` (which throws std::invalid_argument) fills `options`. Returns the status main
    // returns at once: 2 after printing the error after the name of `program`, 0 after printing `usage` for --help;
    // nullopt when the bench is to run.
    template <typename Options, typename Parse>
    [[nodiscard]] std::optional<int> readOptions(Options& options, Parse&& parse, std::string_view program, std::string_view usage)
    {
        try
        {
            options = parse();
        }
        catch (std::invalid_argument const& e)
        {
            fmt::print(stderr, "{}: {}\n", program, e.what());
            return 2;
        }
        if (options.help)
        {
            fmt::print("{}", usage);
            return 0;
        }
        return std::nullopt;
    }
}
