// mxl-fabrics-audio-drift: does a fabric audio link keep up with real time for minutes on end? mxl-test-source writes
// a tone into an audio flow on the TAI clock; mxl-fabrics-demo's initiator sends it, batch by batch as each batch is
// due, to a demo target in another domain. Every --interval-ms this program reads both flows' head indices and prints
// how many samples the target is behind the source. The link holds when the target is within one batch (the flow's
// commit hint) at every check; the exit status says whether it did.
#include "Process.hpp"
#include "ScratchDirectory.hpp"

#include <mxl/flow.h>
#include <mxl/mxl.h>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

namespace
{
    namespace po = boost::program_options;
    using namespace std::chrono_literals;
    using mxl::test::Process;

    struct Options
    {
        std::string provider = "tcp";
        std::string flow = std::string{MXL_SOURCE_DIR} + "/flows/audio_48k_stereo.json";
        double seconds = 600.0;
        // Not a multiple of a batch, so that the checks fall at every phase of one.
        int intervalMs = 997;
    };

    // A reader of one flow, for its head index.
    class HeadReader
    {
    public:
        HeadReader(std::string const& domain, std::string const& flowId)
            : _instance{mxlCreateInstance(domain.c_str(), nullptr)}
        {
            if (_instance == nullptr || mxlCreateFlowReader(_instance, flowId.c_str(), nullptr, &_reader) != MXL_STATUS_OK)
            {
                throw std::runtime_error{fmt::format("cannot read flow {} in {}", flowId, domain)};
            }
        }

        ~HeadReader()
        {
            mxlReleaseFlowReader(_instance, _reader);
            mxlDestroyInstance(_instance);
        }

        HeadReader(HeadReader const&) = delete;
        HeadReader& operator=(HeadReader const&) = delete;

        [[nodiscard]] std::uint64_t head() const
        {
            mxlFlowRuntimeInfo runtime{};
            mxlFlowReaderGetRuntimeInfo(_reader, &runtime);
            return runtime.headIndex;
        }

        [[nodiscard]] mxlFlowConfigInfo config() const
        {
            mxlFlowConfigInfo info{};
            mxlFlowReaderGetConfigInfo(_reader, &info);
            return info;
        }

    private:
        mxlInstance _instance;
        mxlFlowReader _reader = nullptr;
    };

    std::optional<Options> parse(int argc, char** argv)
    {
        Options options;
        po::options_description description{"mxl-fabrics-audio-drift options"};
        description.add_options()("help,h", "print this help")                                                  //
            ("provider,p", po::value(&options.provider), "tcp or shm (default tcp)")                            //
            ("flow,f", po::value(&options.flow), "audio flow definition (default flows/audio_48k_stereo.json)") //
            ("seconds", po::value(&options.seconds), "how long to run (default 600)")                           //
            ("interval-ms", po::value(&options.intervalMs), "time between checks (default 997)");
        po::variables_map values;
        po::store(po::parse_command_line(argc, argv, description), values);
        po::notify(values);
        if (values.count("help") != 0)
        {
            std::cout << description << "\nExit status 0 when the target stayed within one batch of the source at every check.\n";
            return std::nullopt;
        }
        return options;
    }

    // Both heads as one observation: the source read again after the target, and the pair retried if the source moved.
    std::pair<std::uint64_t, std::uint64_t> heads(HeadReader const& source, HeadReader const& target)
    {
        for (;;)
        {
            auto const before = source.head();
            auto const targetHead = target.head();
            if (source.head() == before)
            {
                return {before, targetHead};
            }
        }
    }

    // Drains a child's stdout, printing every line but its once-a-second statistics. (A zero timeout would read nothing,
    // the pipe would fill after some 500 s of statistics and the child would block writing to it.)
    void forwardEvents(char const* role, Process& child)
    {
        std::istringstream lines{child.drainOutput(1ms)};
        for (std::string line; std::getline(lines, line);)
        {
            if (line.rfind("stats", 0) != 0)
            {
                fmt::print("{}: {}\n", role, line);
            }
        }
    }

    int run(Options const& options)
    {
        mxl::bench::ScratchDirectory const scratch{"mxl-fabrics-audio-drift"};
        auto const sourceDomain = scratch.subdirectory("source").string();
        auto const targetDomain = scratch.subdirectory("target").string();
        std::ifstream definitionFile{options.flow};
        std::stringstream definition;
        definition << definitionFile.rdbuf();
        auto const flowId = nlohmann::json::parse(definition.str()).at("id").get<std::string>();

        Process source{{MXL_TEST_SOURCE_BINARY, "-d", sourceDomain, "-a", options.flow}};
        if (!source.waitForLine("flow " + flowId, 10s))
        {
            throw std::runtime_error{"mxl-test-source did not create the flow"};
        }
        std::vector<std::string> targetArguments{MXL_DEMO_BINARY, "-d", targetDomain, "-f", options.flow, "-p", options.provider};
        if (options.provider == "tcp")
        {
            targetArguments.insert(targetArguments.end(), {"-n", "127.0.0.1", "-s", "0"});
        }
        Process target{targetArguments};
        auto const ticketLine = target.waitForLine("Target info: ", 10s);
        if (!ticketLine)
        {
            throw std::runtime_error{"the demo target printed no ticket"};
        }
        auto const ticket = ticketLine->substr(ticketLine->find("Target info: ") + 13);
        Process initiator{{MXL_DEMO_BINARY, "-i", "-d", sourceDomain, "-f", flowId, "-t", ticket}};
        if (!initiator.waitForLine("connected to", 15s))
        {
            throw std::runtime_error{"the demo initiator did not connect"};
        }

        HeadReader const sourceHead{sourceDomain, flowId};
        HeadReader const targetHead{targetDomain, flowId};
        auto const config = sourceHead.config();
        auto const batch = std::uint64_t{config.common.maxCommitBatchSizeHint};
        fmt::print("drift: provider {} flow {} ({} channels, batch {} samples), {} s, a check every {} ms\n", options.provider, flowId,
                   config.continuous.channelCount, batch, options.seconds, options.intervalMs);

        // The first batches are under way while the initiator starts.
        std::this_thread::sleep_for(1s);
        auto const start = std::chrono::steady_clock::now();
        auto const end =
            start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>{options.seconds});
        auto next = start;
        std::uint64_t checks = 0;
        std::uint64_t beyond = 0;
        std::int64_t maxLag = 0;
        std::int64_t minLag = 0;
        double lagSum = 0;
        while (next < end)
        {
            std::this_thread::sleep_until(next);
            next += std::chrono::milliseconds{options.intervalMs};
            auto const [sourceIndex, targetIndex] = heads(sourceHead, targetHead);
            auto const lag = static_cast<std::int64_t>(sourceIndex) - static_cast<std::int64_t>(targetIndex);
            ++checks;
            maxLag = checks == 1 ? lag : std::max(maxLag, lag);
            minLag = checks == 1 ? lag : std::min(minLag, lag);
            lagSum += static_cast<double>(lag);
            auto const within = lag >= 0 && lag <= static_cast<std::int64_t>(batch);
            beyond += within ? 0 : 1;
            fmt::print("check {} t={:.0f}s source={} target={} lag={} samples ({:.2f} batches){}\n", checks,
                       std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), sourceIndex, targetIndex, lag,
                       static_cast<double>(lag) / static_cast<double>(batch), within ? "" : "  BEYOND ONE BATCH");
            // The children print statistics every second; their pipes must not fill up over a long run. Whatever else
            // they say (a target lost, a summary) is passed on.
            forwardEvents("source", source);
            forwardEvents("target", target);
            forwardEvents("initiator", initiator);
        }
        fmt::print(
            "drift summary: {} checks over {:.0f} s, lag min {} max {} mean {:.1f} samples (batch {}), {} check(s) beyond one batch: "
            "{}\n",
            checks, options.seconds, minLag, maxLag, lagSum / static_cast<double>(std::max<std::uint64_t>(checks, 1)), batch, beyond,
            beyond == 0 ? "PASS" : "FAIL");
        for (auto* child : {&initiator, &target, &source})
        {
            child->signal(SIGTERM);
            static_cast<void>(child->wait(5s));
        }
        return beyond == 0 ? 0 : 1;
    }
}

int main(int argc, char** argv)
{
    // One line per check as it happens, also into a file or a pipe: a 10-minute run is watched, not waited for.
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    try
    {
        auto const options = parse(argc, argv);
        return options ? run(*options) : 0;
    }
    catch (std::exception const& error)
    {
        fmt::print(stderr, "mxl-fabrics-audio-drift: {}\n", error.what());
        return 2;
    }
}
