#include "BenchCommandLine.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace po = boost::program_options;

namespace mxl::bench
{
    po::variables_map parseCommandLine(int argc, char** argv, po::options_description const& description)
    {
        po::variables_map values;
        try
        {
            po::store(po::parse_command_line(argc, argv, description), values);
            po::notify(values);
        }
        catch (po::error const& e)
        {
            throw std::invalid_argument{fmt::format("{} (see --help)", e.what())};
        }
        return values;
    }

    std::vector<std::string> splitList(std::string_view option, std::string_view text)
    {
        std::vector<std::string> items;
        while (!text.empty())
        {
            auto const comma = text.find(',');
            items.emplace_back(text.substr(0, comma));
            text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
        }
        if (items.empty())
        {
            throw std::invalid_argument{fmt::format("{}: needs at least one entry", option)};
        }
        return items;
    }

    std::vector<std::string> providerList(std::string_view text)
    {
        auto providers = splitList("--providers", text);
        for (auto const& provider : providers)
        {
            if (provider != "tcp" && provider != "shm")
            {
                throw std::invalid_argument{fmt::format("--providers: '{}' is not tcp or shm", provider)};
            }
        }
        return providers;
    }
}
