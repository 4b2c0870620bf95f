#include "FlowPicture.hpp"

#include "AudioPicture.hpp"
#include "AudioSamples.hpp"
#include "FlowSnapshot.hpp"
#include "GrainPicture.hpp"
#include "ToolError.hpp"
#include "common/StatusName.hpp"
#include <client/DomainDirectory.hpp>
#include <client/FlowId.hpp>

#include <mxl/device.h>
#include <mxl/flow.h>

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

namespace mxl::tools::info
{
    namespace
    {
        // A grain or samples at the head may still be being written: wait for them this long.
        constexpr std::uint64_t arrivalTimeoutNs = 1'000'000'000;
        // Without an index mxl-info pictures the newest grain or samples; when the writer overwrote them before they were
        // read (mxl-info descheduled on a loaded machine), it takes the newest again, this many times in all.
        constexpr int newestAttempts = 5;

        // Runs `attempt(mayRetry)` until it returns true: once for a named index, and for the newest up to newestAttempts
        // times, while the writer overtakes what it read (the last try, like a named index, fails instead of returning).
        template <typename Attempt>
        void readNewestOrNamed(PictureRequest const& request, Attempt const& attempt)
        {
            for (int tries = 1;; ++tries)
            {
                if (attempt(!request.index && tries < newestAttempts))
                {
                    return;
                }
            }
        }

        std::uint64_t parseIndex(std::string_view text, std::string_view argument)
        {
            std::uint64_t index = 0;
            auto const [end, error] = std::from_chars(text.data(), text.data() + text.size(), index);
            if (text.empty() || error != std::errc{} || end != text.data() + text.size())
            {
                badInput("--snapshot {}: the index \"{}\" is not an unsigned integer", argument, text);
            }
            return index;
        }

        [[noreturn]] void readFailed(mxlStatus status, std::string const& what, std::string const& flowId, std::uint64_t head)
        {
            if (status == MXL_ERR_OUT_OF_RANGE_TOO_LATE)
            {
                runtimeFailure("{} of flow {} was overwritten (head {}): choose a newer index", what, flowId, head);
            }
            if (status == MXL_ERR_OUT_OF_RANGE_TOO_EARLY)
            {
                runtimeFailure("{} of flow {} did not arrive within 1 s (head {})", what, flowId, head);
            }
            runtimeFailure("reading {} of flow {} failed: {}", what, flowId, statusName(status));
        }

        // True when the read succeeded; false when the writer overtook it and it `mayRetry`; otherwise fails as readFailed.
        bool settled(mxlStatus status, std::string const& what, std::string const& flowId, std::uint64_t head, bool mayRetry)
        {
            if (status == MXL_STATUS_OK)
            {
                return true;
            }
            if (status == MXL_ERR_OUT_OF_RANGE_TOO_LATE && mayRetry)
            {
                return false;
            }
            readFailed(status, what, flowId, head);
        }

        std::uint64_t currentHead(client::FlowReader const& reader, std::string const& flowId)
        {
            mxlFlowRuntimeInfo runtime{};
            if (auto const status = mxlFlowReaderGetRuntimeInfo(reader.get(), &runtime); status != MXL_STATUS_OK)
            {
                runtimeFailure("reading the head of flow {} failed: {}", flowId, statusName(status));
            }
            return runtime.headIndex;
        }

        // A device flow's payload is copied out of device memory through libmxl's module (mxl/device.h).
        std::vector<std::uint8_t> hostCopyOf(FlowSnapshot const& flow, client::FlowReader const& reader, std::uint8_t const* payload,
                                             std::size_t bytes)
        {
            if (flow.info.config.common.payloadLocation != MXL_PAYLOAD_LOCATION_DEVICE_MEMORY)
            {
                return {payload, payload + bytes};
            }
            std::vector<std::uint8_t> copy(bytes);
            if (auto const status = mxlFlowReaderCopyToHost(reader.get(), copy.data(), payload, bytes); status != MXL_STATUS_OK)
            {
                runtimeFailure("copying {} bytes of flow {} out of CUDA device memory failed: {}", bytes, flow.id, statusName(status));
            }
            return copy;
        }

        void pictureOfVideoFlow(FlowSnapshot const& flow, client::FlowReader const& reader, PictureRequest const& request)
        {
            auto const& description = flow.description;
            if (description.mediaType != "video/v210" && description.mediaType != "video/v210a")
            {
                badInput("flow {} is {}: mxl-info makes pictures of video/v210, video/v210a and audio flows", flow.id,
                         description.mediaType.empty() ? std::string{"of an unknown media type"} : description.mediaType);
            }
            auto const colorimetry = colorimetryOf(description.colorspace, flow.id);
            PictureGeometry const geometry{description.frameWidth,
                                           description.interlaced ? description.frameHeight / 2 : description.frameHeight,
                                           description.mediaType == "video/v210a"};

            auto head = flow.info.runtime.headIndex;
            auto index = request.index.value_or(head);
            std::string what;
            std::vector<std::uint8_t> copy;
            readNewestOrNamed(request,
                              [&](bool mayRetry)
                              {
                                  if (!request.index)
                                  {
                                      head = index = currentHead(reader, flow.id);
                                  }
                                  what = fmt::format("grain {}", index);
                                  mxlGrainInfo grain{};
                                  std::uint8_t* payload = nullptr;
                                  auto status = mxlFlowReaderGetGrain(reader.get(), index, arrivalTimeoutNs, &grain, &payload);
                                  if (status == MXL_STATUS_OK)
                                  {
                                      if ((grain.flags & MXL_GRAIN_FLAG_INVALID) != 0)
                                      {
                                          runtimeFailure("{} of flow {} is flagged invalid: its payload is not a picture", what, flow.id);
                                      }
                                      if (grain.grainSize < geometry.payloadBytes())
                                      {
                                          runtimeFailure("{} of flow {} holds {} bytes, but a {}x{} {} grain needs {}", what, flow.id,
                                                         grain.grainSize, geometry.width, geometry.lines, description.mediaType,
                                                         geometry.payloadBytes());
                                      }
                                      copy = hostCopyOf(flow, reader, payload, geometry.payloadBytes());
                                      // A writer may have reused the slot while it was copied; then the copy mixes two grains.
                                      status = mxlFlowReaderGetGrainNonBlocking(reader.get(), index, &grain, &payload);
                                      if (status == MXL_STATUS_OK && grain.index != index)
                                      {
                                          status = MXL_ERR_OUT_OF_RANGE_TOO_LATE;
                                      }
                                  }
                                  return settled(status, what, flow.id, head, mayRetry);
                              });
            writePng(request.file, pictureOfGrain(copy, geometry, colorimetry));
            fmt::print("{} of flow {}: {}x{} {} {}{}, written to {}\n", what, flow.id, geometry.width, geometry.lines,
                       description.mediaType, colorimetry.name, description.interlaced ? " (one field)" : "", request.file.string());
        }

        void pictureOfAudioFlow(FlowSnapshot const& flow, client::FlowReader const& reader, PictureRequest const& request)
        {
            auto const& rate = flow.info.config.common.grainRate;
            auto const perSecond = static_cast<std::size_t>(rate.numerator / std::max<std::int64_t>(rate.denominator, 1));
            AudioRange range{};
            std::string what;
            std::vector<std::vector<float>> channels;
            readNewestOrNamed(request,
                              [&](bool mayRetry)
                              {
                                  range = recentRange(reader.get(), flow.id, perSecond);
                                  auto const head = range.index;
                                  range.index = request.index.value_or(head);
                                  what = fmt::format("samples {}..{}", range.index + 1 - range.count, range.index);
                                  mxlStatus status = MXL_STATUS_OK;
                                  channels = copySamples(reader.get(), range, arrivalTimeoutNs, status);
                                  return settled(status, what, flow.id, head, mayRetry);
                              });
            writePng(request.file, pictureOfAudio(channels, AudioPictureLayout{}));
            fmt::print("{} of flow {} ({} per channel, {} channels), written to {}\n", what, flow.id, range.count, channels.size(),
                       request.file.string());
            for (std::size_t channel = 0; channel < channels.size(); ++channel)
            {
                auto const peak = peakOf(channels[channel]);
                fmt::print("  channel {:>2}: peak {:.6f} ({:.2f} dBFS)\n", channel + 1, peak, decibelsFullScale(peak));
            }
        }
    }

    PictureRequest parsePictureRequest(std::vector<std::string> const& values)
    {
        if (values.size() != 2)
        {
            badInput("--snapshot takes two values, FLOW[@INDEX] and FILE.png; got {}", values.size());
        }
        auto const& flow = values[0];
        auto const at = flow.find('@');
        PictureRequest request;
        request.flowId = client::requireFlowId(flow.substr(0, at));
        if (at != std::string::npos)
        {
            request.index = parseIndex(std::string_view{flow}.substr(at + 1), flow);
        }
        request.file = values[1];
        return request;
    }

    void writeFlowPicture(client::Instance const& instance, std::filesystem::path const& domain, PictureRequest const& request)
    {
        client::requireFlowDirectory(domain, request.flowId);
        auto const flow = readFlowSnapshot(instance, request.flowId);
        client::FlowReader const reader{instance, request.flowId};
        if (flow.continuous())
        {
            pictureOfAudioFlow(flow, reader, request);
            return;
        }
        pictureOfVideoFlow(flow, reader, request);
    }
}
