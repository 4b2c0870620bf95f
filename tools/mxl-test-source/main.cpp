// mxl-test-source: writes colour bars, tones and time code into MXL flows at their grain rate, paced by the TAI clock.
#include "CommandLine.hpp"
#include "ExitRequest.hpp"
#include "StatsReporter.hpp"
#include "ToolMain.hpp"
#include <client/DomainDirectory.hpp>
#include <client/MxlHandles.hpp>
#include <client/TaiOffsetCheck.hpp>
#include <client/TextFile.hpp>
#include <patterns/FlowSource.hpp>
#include <patterns/Schedule.hpp>

#include <fmt/format.h>

#include <cstdio>
#include <iostream>

namespace po = boost::program_options;

namespace mxl::tools::testsource
{
    namespace
    {
        constexpr char const* usage = R"(Usage: mxl-test-source -d DOMAIN [-v VIDEO.json] [-a AUDIO.json] [-D DATA.json] [options]

Writes test media into MXL flows in real time, one writer per flow, paced on the TAI clock with absolute deadlines:
  video  SMPTE-style 75 % colour bars with a white box moving with the grain index (video/v210; video/v210a adds
         a key plane in which the box is opaque and the bars half transparent)
  audio  a sine tone per channel: 100 Hz x (channel + 1), amplitude 0.5, phase from the absolute sample index
  data   one RFC 8331 payload per grain holding an SMPTE ST 12-2 time code packet counted from the grain index
Grains whose time has passed are committed as invalid (audio: silence). At start each flow is announced on stdout
as "flow <uuid> <media type>"; then one "stats" line per second gives the grains written, late and invalid.

Exit status: 0 done or stopped by SIGINT/SIGTERM, 1 an mxl call failed, 2 bad command line or input file,
3 the domain is missing or unusable.

Options)";

        po::options_description describeOptions()
        {
            po::options_description options{usage, 120, 60};
            // clang-format off
            options.add_options()
                ("domain,d", po::value<std::string>()->value_name("DIR"), "domain directory (must exist), e.g. /dev/shm/mxl")
                ("video,v", po::value<std::string>()->value_name("FILE"), "video flow definition (NMOS JSON, media_type video/v210 or video/v210a)")
                ("audio,a", po::value<std::string>()->value_name("FILE"), "audio flow definition (NMOS JSON, float samples)")
                ("data,D", po::value<std::string>()->value_name("FILE"), "data flow definition (NMOS JSON, media_type video/smpte291)")
                ("flow-options", po::value<std::string>()->value_name("FILE"),
                    "flow options JSON passed to every writer (maxCommitBatchSizeHint, maxSyncBatchSizeHint; units are lines, "
                    "bytes or samples per flow)")
                ("count", po::value<std::uint64_t>()->default_value(0)->value_name("N"),
                    "grains to write per video and data flow, sample batches per audio flow; 0 runs until SIGINT/SIGTERM")
                ("slices", po::value<std::uint32_t>()->value_name("N"),
                    "commit video in batches of N lines spread over the grain period (at most the flow's commit hint; "
                    "default: the commit hint)")
                ("prerendered",
                    "render once, commit many: video paints each ring slot the first time a grain lands in it and then only "
                    "commits (the picture repeats with the ring's period); audio copies samples from one precomputed tone "
                    "period (the same samples). Pacing is unchanged. For measuring transport capacity, not the renderer")
                ("group-hint", po::value<std::string>()->value_name("NAME"),
                    "replace the definitions' grouphint with NAME:video, NAME:audio and NAME:data")
                ("device", po::value<std::int32_t>()->value_name("N"),
                    "put the video and data payloads in the memory of CUDA device N (flow options payloadLocation \"device\", "
                    "deviceIndex N): each grain is painted in host memory and copied to the device; audio stays in host memory. "
                    "Needs a build with CUDA, the driver and the device (docs/device-flows.md)")
                ("help,h", "show this help and exit");
            // clang-format on
            return options;
        }

        ExitCode run(int argc, char const* const* argv)
        {
            auto const options = describeOptions();
            auto const values = parseCommandLine(argc, argv, options);
            if (values.contains("help"))
            {
                std::cout << options << '\n';
                return ExitCode::Success;
            }
            if (!values.contains("domain"))
            {
                throw ToolError{ErrorKind::Usage, "missing --domain DIR (see --help)"};
            }
            client::warnIfTaiOffsetUnset();
            if (!values.contains("video") && !values.contains("audio") && !values.contains("data"))
            {
                throw ToolError{ErrorKind::Usage, "nothing to write: give at least one of --video, --audio, --data (see --help)"};
            }

            patterns::SourceSettings settings;
            settings.count = values["count"].as<std::uint64_t>();
            if (values.contains("flow-options"))
            {
                settings.flowOptions = client::readTextFile(values["flow-options"].as<std::string>(), "flow options");
            }
            if (values.contains("slices"))
            {
                settings.slicesPerCommit = values["slices"].as<std::uint32_t>();
            }
            settings.prerendered = values.contains("prerendered");
            if (values.contains("group-hint"))
            {
                settings.groupHint = values["group-hint"].as<std::string>();
            }

            if (values.contains("device"))
            {
                settings.deviceIndex = values["device"].as<std::int32_t>();
                if (*settings.deviceIndex < 0)
                {
                    throw ToolError{ErrorKind::Usage,
                                    fmt::format("--device {} is not a CUDA device ordinal (expected 0 or more)", *settings.deviceIndex)};
                }
            }

            std::filesystem::path const domain = values["domain"].as<std::string>();
            client::requireDomainDirectory(domain);
            installExitRequestHandlers();
            client::Instance const instance{domain};

            std::vector<std::unique_ptr<patterns::FlowSource>> sources;
            if (values.contains("video"))
            {
                sources.push_back(patterns::openVideoSource(instance, values["video"].as<std::string>(), settings));
            }
            if (values.contains("audio"))
            {
                sources.push_back(patterns::openAudioSource(instance, values["audio"].as<std::string>(), settings));
            }
            if (values.contains("data"))
            {
                sources.push_back(patterns::openDataSource(instance, values["data"].as<std::string>(), settings));
            }

            std::vector<ScheduledTask*> mediaTasks;
            std::vector<WriterStats const*> stats;
            for (auto const& source : sources)
            {
                fmt::print("flow {} {}\n", source->id, source->mediaType);
                mediaTasks.push_back(source->task.get());
                stats.push_back(&source->stats);
            }
            std::fflush(stdout);

            StatsReporter reporter{stats};
            patterns::runSchedule(mediaTasks, {&reporter}, exitRequested);
            reporter.report();
            return ExitCode::Success;
        }
    }
}

int main(int argc, char** argv)
{
    return mxl::tools::runToolMain("mxl-test-source", [&] { return mxl::tools::testsource::run(argc, argv); });
}
