#include "WakeBench.hpp"

#include "BenchCommandLine.hpp"

#include <fmt/format.h>

#include <exception>
#include <stdexcept>
#include <utility>

namespace po = boost::program_options;

namespace mxl::bench
{
    namespace
    {
        struct WakeBenchOptions
        {
            int wakes = 2000;
            int grains = 500;
            bool help = false;
        };

        // Throws std::invalid_argument naming what is wrong.
        WakeBenchOptions parseWakeBenchOptions(int argc, char** argv)
        {
            WakeBenchOptions options;
            po::options_description description;
            description.add_options()("help,h", po::bool_switch(&options.help))("wakes", po::value(&options.wakes))(
                "grains", po::value(&options.grains));
            static_cast<void>(parseCommandLine(argc, argv, description));
            for (auto const& [name, count] : {std::pair{"--wakes", options.wakes}, std::pair{"--grains", options.grains}})
            {
                if (count <= 0)
                {
                    throw std::invalid_argument{fmt::format("{} needs a positive count, not {}", name, count)};
                }
            }
            return options;
        }
    }

    int runWakeBench(int argc, char** argv, std::string_view program, WakeBenchHelp const& help,
                     std::function<void(int wakes, int grains)> const& run)
    {
        WakeBenchOptions const defaults;
        auto const usage = fmt::format("usage: {} [--wakes N] [--grains N]\n"
                                       "  --wakes N   {} (default {})\n"
                                       "  --grains N  {} (default {})\n"
                                       "{}\n",
                                       program, help.wakes, defaults.wakes, help.grains, defaults.grains, help.prints);
        WakeBenchOptions options;
        if (auto const exitCode = readOptions(
                options, [&] { return parseWakeBenchOptions(argc, argv); }, program, usage))
        {
            return *exitCode;
        }
        try
        {
            run(options.wakes, options.grains);
        }
        catch (std::exception const& e)
        {
            fmt::print(stderr, "{}: {}\n", program, e.what());
            return 1;
        }
        return 0;
    }
}
