// mxl-fabrics-soak-bench: pushes grains through a libmxl-fabrics initiator and target as fast as a checker in a third
// process verifies them, and prints per provider what arrived intact, bad, torn or lost (and whether the initiator
// reported the losses), with the resident memory and open descriptors of both ends at start and at end.
#include "SoakRun.hpp"

#include <boost/program_options.hpp>

#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

namespace po = boost::program_options;

namespace
{
    constexpr char const* usage = R"(Usage: mxl-fabrics-soak-bench [--provider tcp|shm|both] [--format 1080p|2160p] [--grains N]

Moves N v210 grains (59.94 Hz geometry) from a source flow through a libmxl-fabrics initiator into a target's flow,
as fast as a checker in a third process verifies them: every 64-bit word of grain i is (i << 32 | word number), so
the checker tells an intact grain from a torn one (words of another grain) and a bad one. Each end runs in its own
process on its own domain under /dev/shm. One table row per provider:

  sent       grains the initiator transferred
  verified   grains the target committed that are the source's byte for byte
  bad        grains committed valid whose words are no grain's
  torn       grains committed valid that carry words of another grain
  lost       grains flagged invalid at the target, or never committed
  reported   losses the initiator announced (its transfersInvalidated counter)
  RSS, fds   resident memory (KiB) and open descriptors of the initiator and the target, after the first 50 grains
             and at the end

Exit status 0 when every row has bad = torn = 0 and lost = reported; 1 otherwise; 2 for a bad command line.

Options:
)";

    std::string footprints(mxl::bench::ProcessFootprint const& start, mxl::bench::ProcessFootprint const& end)
    {
        return fmt::format("{} → {} KiB, {} → {} fds", start.rssKiB, end.rssKiB, start.openFds, end.openFds);
    }
}

int main(int argc, char** argv)
{
    po::options_description options;
    std::string provider = "both";
    std::string format = "1080p";
    std::uint64_t grains = 0;
    options.add_options()("help,h", "print this help and exit")                                       //
        ("provider", po::value(&provider)->value_name("P"), "tcp, shm or both (default both)")        //
        ("format", po::value(&format)->value_name("F"), "1080p or 2160p v210 grains (default 1080p)") //
        ("grains", po::value(&grains)->value_name("N"), "grains per provider (default 1000000 for 1080p, 100000 for 2160p)");
    po::variables_map values;
    try
    {
        po::store(po::parse_command_line(argc, argv, options), values);
        po::notify(values);
    }
    catch (std::exception const& e)
    {
        fmt::print(stderr, "mxl-fabrics-soak-bench: {}\n", e.what());
        return 2;
    }
    if (values.contains("help"))
    {
        std::cout << usage << options << '\n';
        return 0;
    }
    if (format != "1080p" && format != "2160p")
    {
        fmt::print(stderr, "mxl-fabrics-soak-bench: --format {}: expected 1080p or 2160p\n", format);
        return 2;
    }
    if (provider != "tcp" && provider != "shm" && provider != "both")
    {
        fmt::print(stderr, "mxl-fabrics-soak-bench: --provider {}: expected tcp, shm or both\n", provider);
        return 2;
    }
    if (grains == 0)
    {
        grains = format == "2160p" ? 100'000 : 1'000'000;
    }
    std::vector<std::string> const providers = provider == "both" ? std::vector<std::string>{"tcp", "shm"} : std::vector{provider};

    fmt::print("| provider | format | sent | verified | bad | torn | lost | reported | grains/s | initiator | target |\n"
               "|---|---|---|---|---|---|---|---|---|---|---|\n");
    std::fflush(stdout);
    bool clean = true;
    for (auto const& name : providers)
    {
        try
        {
            auto const result = mxl::bench::runSoak({name, format, grains});
            fmt::print("| {} | {} | {} | {} | {} | {} | {} | {} | {:.0f} | {} | {} |\n", name, format, result.sent, result.verified,
                       result.bad, result.torn, result.lost, result.reported, static_cast<double>(result.sent) / result.seconds,
                       footprints(result.initiatorStart, result.initiatorEnd), footprints(result.targetStart, result.targetEnd));
            clean = clean && result.bad == 0 && result.torn == 0 && result.lost == result.reported &&
                    result.verified + result.lost == result.sent;
        }
        catch (std::exception const& e)
        {
            fmt::print("| {} | {} | failed: {} | | | | | | | | |\n", name, format, e.what());
            clean = false;
        }
        std::fflush(stdout);
    }
    return clean ? 0 : 1;
}
