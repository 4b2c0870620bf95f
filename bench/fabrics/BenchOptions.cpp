#include "BenchOptions.hpp"

#include <fmt/format.h>

#include <charconv>
#include <stdexcept>
#include <string_view>

namespace mxl::bench
{
    char const* const benchUsage =
        "usage: mxl-fabrics-bench [--providers tcp,shm] [--sizes 1080p,2160p] [--seconds S] [--depth N]\n"
        "                         [--repeat N] [--placement across|same|none] [--backends ofi,ucx]\n"
        "  --providers   libfabric providers to measure (default tcp,shm)\n"
        "  --backends    libmxl-fabrics backends to measure beside raw libfabric, a row each\n"
        "                (default ofi,ucx; ucx needs libmxl-fabrics-ucx.so)\n"
        "  --sizes       v210 grain sizes to move (default 1080p,2160p)\n"
        "  --seconds S   measured seconds per run, after 0.5 s of warm-up (default 3)\n"
        "  --depth N     grains in flight and completion queue size, 1-16 (default 4)\n"
        "  --repeat N    runs per row, raw and mxl alternating; the run with the median\n"
        "                grains/s is shown (default 1)\n"
        "  --placement   initiator on vCPU 0 and target on vCPU 1 (across, the default), both on\n"
        "                vCPU 0 (same), or not pinned (none)\n"
        "Prints one markdown table per provider: plain libfabric RMA writes (raw) beside\n"
        "libmxl-fabrics over each backend (mxl ofi, mxl ucx), measured in the same run, with\n"
        "PASS/MISS against the targets mxl >= 0.9x raw throughput and mxl CPU/GB <= 1.1x raw.\n";

    namespace
    {
        std::vector<std::string> splitList(std::string_view text)
        {
            std::vector<std::string> items;
            while (!text.empty())
            {
                auto const comma = text.find(',');
                items.emplace_back(text.substr(0, comma));
                text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
            }
            return items;
        }

        template <typename Number>
        Number parseNumber(std::string_view option, std::string_view text, Number low, Number high)
        {
            Number value{};
            auto const [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
            if (error != std::errc{} || end != text.data() + text.size() || value < low || value > high)
            {
                throw std::invalid_argument{fmt::format("{} '{}': expected a number from {} to {}", option, text, low, high)};
            }
            return value;
        }

        std::optional<Placement> parsePlacement(std::string_view text)
        {
            if (text == "across")
            {
                return onlineCpuCount() > 1 ? Placement{0, 1} : Placement{0, 0};
            }
            if (text == "same")
            {
                return Placement{0, 0};
            }
            if (text == "none")
            {
                return std::nullopt;
            }
            throw std::invalid_argument{fmt::format("--placement '{}': expected across, same or none", text)};
        }
    }

    BenchOptions parseBenchOptions(int argc, char** argv)
    {
        BenchOptions options;
        options.placement = parsePlacement("across");
        std::vector<std::string> sizes{"1080p", "2160p"};
        for (int i = 1; i < argc; ++i)
        {
            std::string_view const option{argv[i]};
            if (option == "-h" || option == "--help")
            {
                options.help = true;
                return options;
            }
            if (i + 1 >= argc)
            {
                throw std::invalid_argument{fmt::format("unknown option '{}' or it lacks a value (see --help)", option)};
            }
            std::string_view const value{argv[++i]};
            if (option == "--providers")
            {
                options.providers = splitList(value);
                for (auto const& provider : options.providers)
                {
                    if (provider != "tcp" && provider != "shm")
                    {
                        throw std::invalid_argument{fmt::format("--providers: '{}' is not tcp or shm", provider)};
                    }
                }
            }
            else if (option == "--backends")
            {
                options.backends = splitList(value);
                for (auto const& backend : options.backends)
                {
                    if (backend != "ofi" && backend != "ucx")
                    {
                        throw std::invalid_argument{fmt::format("--backends: '{}' is not ofi or ucx", backend)};
                    }
                }
            }
            else if (option == "--sizes")
            {
                sizes = splitList(value);
            }
            else if (option == "--seconds")
            {
                options.seconds = parseNumber(option, value, 0.1, 3600.0);
            }
            else if (option == "--depth")
            {
                options.depth = parseNumber<std::uint32_t>(option, value, 1, 16);
            }
            else if (option == "--repeat")
            {
                options.repeat = parseNumber<std::uint32_t>(option, value, 1, 99);
            }
            else if (option == "--placement")
            {
                options.placement = parsePlacement(value);
            }
            else
            {
                throw std::invalid_argument{fmt::format("unknown option '{}' (see --help)", option)};
            }
        }
        for (auto const& size : sizes)
        {
            auto format = grainFormatNamed(size);
            if (!format)
            {
                throw std::invalid_argument{fmt::format("--sizes: '{}' is not 1080p or 2160p", size)};
            }
            options.formats.push_back(*format);
        }
        if (options.providers.empty() || options.formats.empty() || options.backends.empty())
        {
            throw std::invalid_argument{"--providers, --sizes and --backends need at least one entry each"};
        }
        return options;
    }
}
