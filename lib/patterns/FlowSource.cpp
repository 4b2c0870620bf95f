#include "FlowSource.hpp"

#include "DiscreteGrainWriter.hpp"
#include "PrerenderedRing.hpp"
#include "TestPatternRenderer.hpp"
#include "TimecodePacket.hpp"
#include "ToneWriter.hpp"
#include <client/ClientError.hpp>
#include <client/DeviceFlowOptions.hpp>
#include <client/FlowDescription.hpp>
#include <client/FlowId.hpp>
#include <client/TextFile.hpp>

#include <fmt/format.h>
#include <media/Rfc8331.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <limits>

namespace mxl::patterns
{
    namespace
    {
        struct LoadedDefinition
        {
            std::string json;
            std::string origin;
            client::FlowDescription description;
        };

        // Reads the definition file and checks that it describes the kind of flow this option writes.
        LoadedDefinition loadDefinition(std::filesystem::path const& file, SourceSettings const& settings, std::string_view kind,
                                        std::initializer_list<std::string_view> mediaTypes)
        {
            LoadedDefinition loaded;
            loaded.origin = fmt::format("'{}'", file.string());
            loaded.json = client::readTextFile(file, fmt::format("{} flow definition", kind));
            loaded.description = client::parseFlowDescription(loaded.json, loaded.origin);

            auto const expectedFormat = fmt::format("urn:x-nmos:format:{}", kind);
            if (loaded.description.format != expectedFormat)
            {
                throw client::ClientError{client::ErrorKind::Usage,
                                          fmt::format("the {} flow definition {} has format '{}' (expected {})", kind, loaded.origin,
                                                      loaded.description.format, expectedFormat)};
            }
            if (mediaTypes.size() != 0 && std::ranges::find(mediaTypes, loaded.description.mediaType) == mediaTypes.end())
            {
                throw client::ClientError{client::ErrorKind::Usage,
                                          fmt::format("the {} flow definition {} has media_type '{}' (expected {})", kind, loaded.origin,
                                                      loaded.description.mediaType, fmt::join(mediaTypes, " or "))};
            }
            if (settings.groupHint)
            {
                loaded.json = client::withGroupHint(loaded.json, loaded.origin, *settings.groupHint, kind);
            }
            return loaded;
        }

        // The --flow-options text with payloadLocation "device" and deviceIndex added where --device asks for them.
        std::string writerOptions(SourceSettings const& settings, std::string_view kind)
        {
            if (!settings.deviceIndex || kind == "audio")
            {
                return settings.flowOptions;
            }
            try
            {
                return client::withDeviceOptions(settings.flowOptions, "--flow-options", *settings.deviceIndex,
                                                 fmt::format("--device {}", *settings.deviceIndex));
            }
            catch (client::DeviceOptionsConflict const& conflict)
            {
                throw client::ClientError{client::ErrorKind::Usage, conflict.what()};
            }
        }

        std::unique_ptr<FlowSource> createFlow(client::Instance const& instance, LoadedDefinition const& loaded,
                                               SourceSettings const& settings, std::string_view kind, std::string_view mediaType)
        {
            auto source = std::make_unique<FlowSource>();
            source->writer = std::make_unique<client::FlowWriter>(instance, loaded.json, writerOptions(settings, kind), loaded.origin);
            source->stats.kind = std::string{kind};
            source->id = client::canonicalFlowId(loaded.description.id).value_or(loaded.description.id);
            source->mediaType = std::string{mediaType};
            if (!source->writer->created())
            {
                fmt::print(stderr, "mxl-test-source: flow {} already existed; writing into it with its existing configuration\n",
                           source->id);
            }
            return source;
        }

        std::uint32_t videoSlicesPerCommit(SourceSettings const& settings, mxlFlowConfigInfo const& config, std::uint32_t lines,
                                           std::string const& origin)
        {
            auto const hint = config.common.maxCommitBatchSizeHint;
            if (!settings.slicesPerCommit)
            {
                return std::max<std::uint32_t>(1, hint);
            }
            auto const slices = *settings.slicesPerCommit;
            if (slices < 1 || slices > lines)
            {
                throw client::ClientError{
                    client::ErrorKind::Usage,
                    fmt::format("--slices {} does not fit the {} lines of a grain of {} (expected 1..{})", slices, lines, origin, lines)};
            }
            if (slices > hint)
            {
                throw client::ClientError{
                    client::ErrorKind::Usage,
                    fmt::format("--slices {} exceeds the maxCommitBatchSizeHint {} of the flow of {} (raise it with --flow-options)",
                                slices, hint, origin)};
            }
            return slices;
        }
    }

    std::unique_ptr<FlowSource> openVideoSource(client::Instance const& instance, std::filesystem::path const& definitionFile,
                                                SourceSettings const& settings)
    {
        auto const loaded = loadDefinition(definitionFile, settings, "video", {"video/v210", "video/v210a"});
        auto const& description = loaded.description;
        bool const withKey = description.mediaType == "video/v210a";
        auto const lines = description.interlaced ? description.frameHeight / 2 : description.frameHeight;
        if (description.frameWidth < 2 || lines < 1)
        {
            throw client::ClientError{
                client::ErrorKind::Usage,
                fmt::format("the video flow definition {} has a {}x{} frame (expected frame_width >= 2 and frame_height >= 1)",
                            loaded.origin, description.frameWidth, description.frameHeight)};
        }
        auto renderer = std::make_shared<patterns::TestPatternRenderer const>(description.frameWidth, lines, withKey);

        auto source = createFlow(instance, loaded, settings, "video", description.mediaType);
        auto const& config = source->writer->config();
        if (config.discrete.sliceSizes[0] != renderer->fillLineBytes() || config.discrete.sliceSizes[1] != renderer->keyLineBytes())
        {
            throw client::ClientError{
                client::ErrorKind::Failure,
                fmt::format("the flow of {} has slice sizes {}/{} bytes, but a {}-pixel {} line needs {}/{} (the flow existed "
                            "with another geometry?)",
                            loaded.origin, config.discrete.sliceSizes[0], config.discrete.sliceSizes[1], description.frameWidth,
                            description.mediaType, renderer->fillLineBytes(), renderer->keyLineBytes())};
        }
        GrainPainter painter = [renderer](std::uint64_t index, std::uint32_t firstSlice, std::uint32_t sliceCount,
                                          std::span<std::uint8_t> payload) { renderer->render(index, firstSlice, sliceCount, payload); };
        if (settings.prerendered)
        {
            painter = paintEachSlotOnce(std::move(painter), config.discrete.grainCount);
        }
        source->task = std::make_unique<DiscreteGrainWriter>(source->writer->get(), config,
                                                             videoSlicesPerCommit(settings, config, lines, loaded.origin), settings.count,
                                                             std::move(painter), source->stats);
        return source;
    }

    std::unique_ptr<FlowSource> openAudioSource(client::Instance const& instance, std::filesystem::path const& definitionFile,
                                                SourceSettings const& settings)
    {
        auto const loaded = loadDefinition(definitionFile, settings, "audio", {});
        auto const mediaType = loaded.description.mediaType.empty() ? std::string{"audio/float32"} : loaded.description.mediaType;
        auto source = createFlow(instance, loaded, settings, "audio", mediaType);
        source->task = std::make_unique<ToneWriter>(source->writer->get(), source->writer->config(), settings.count, settings.prerendered,
                                                    source->stats);
        return source;
    }

    std::unique_ptr<FlowSource> openDataSource(client::Instance const& instance, std::filesystem::path const& definitionFile,
                                               SourceSettings const& settings)
    {
        auto const loaded = loadDefinition(definitionFile, settings, "data", {"video/smpte291"});
        auto source = createFlow(instance, loaded, settings, "data", loaded.description.mediaType);
        auto const rate = source->writer->config().common.grainRate;
        auto painter = [rate](std::uint64_t index, std::uint32_t, std::uint32_t, std::span<std::uint8_t> payload)
        {
            std::array const packets{patterns::grainTimecodePacket(index, rate)};
            auto const bytes = media::writeRfc8331(packets);
            // The slot holds an older grain's bytes; readers parse from Length on, but a clean tail is easier to inspect.
            std::ranges::fill(payload, std::uint8_t{0});
            std::memcpy(payload.data(), bytes.data(), std::min(bytes.size(), payload.size()));
        };
        source->task = std::make_unique<DiscreteGrainWriter>(source->writer->get(), source->writer->config(),
                                                             std::numeric_limits<std::uint32_t>::max(), settings.count, std::move(painter),
                                                             source->stats);
        return source;
    }
}
