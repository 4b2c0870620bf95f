#include "TestFlows.hpp"

#include <patterns/TimecodePacket.hpp>

#include <mxl/time.h>

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <media/Rfc8331.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <fstream>

namespace mxl::test::gst
{
    namespace
    {
        constexpr auto grouphintTag = "urn:x-nmos:tag:grouphint/v1.0";
        constexpr std::uint64_t audioBatchSamples = 480;
    }

    namespace
    {
        // The keys every definition here has: flow `id` of NMOS format `format` ("video", "audio" or "data"), labelled
        // and grouped after it.
        nlohmann::json commonDefinition(std::string const& id, std::string const& format, std::string const& role)
        {
            return {
                {"id", id},
                {"label", "gstreamer test " + format},
                {"format", "urn:x-nmos:format:" + format},
                {"tags", {{grouphintTag, {"gstreamer test:" + role}}}},
            };
        }

        nlohmann::json rateOf(mxlRational rate)
        {
            return {{"numerator", rate.numerator}, {"denominator", rate.denominator}};
        }
    }

    std::string videoDefinition(std::string const& id, std::uint32_t width, std::uint32_t height, mxlRational rate, char const* mediaType)
    {
        auto definition = commonDefinition(id, "video", "Video");
        definition.update({
            {"grain_rate", rateOf(rate)},
            {"frame_width", width},
            {"frame_height", height},
            {"interlace_mode", "progressive"},
            {"colorspace", "BT709"},
            {"transfer_characteristic", "SDR"},
            {"media_type", mediaType},
        });
        return definition.dump();
    }

    std::string audioDefinition(std::string const& id, std::uint32_t channels, std::int64_t rate)
    {
        auto definition = commonDefinition(id, "audio", "Audio");
        definition.update({
            {"sample_rate", rateOf({rate, 1})},
            {"media_type", "audio/float32"},
            {"bit_depth", 32},
            {"channel_count", channels},
        });
        return definition.dump();
    }

    std::string dataDefinition(std::string const& id, mxlRational rate)
    {
        auto definition = commonDefinition(id, "data", "Data");
        definition.update({
            {"grain_rate", rateOf(rate)},
            {"media_type", "video/smpte291"},
        });
        return definition.dump();
    }

    void setHistory(TempDomain const& domain, std::uint64_t historyNs)
    {
        std::ofstream{domain.path() / "options.json"} << fmt::format(R"({{"urn:x-mxl:option:history_duration/v1.0": {}}})", historyNs);
    }

    std::string teeIntoSinkAndReference(std::string const& source, TempDomain const& domain, std::string const& flowId,
                                        std::string const& sinkProperties)
    {
        return fmt::format(
            "{} ! tee name=t ! queue ! mxlsink name=sink domain={} flow-id={} {} t. ! queue ! appsink name=reference sync=false", source,
            domain.str(), flowId, sinkProperties);
    }

    std::uint8_t grainByte(std::uint64_t index, std::size_t offset)
    {
        return static_cast<std::uint8_t>(index * 7 + offset * 13 + (offset >> 8));
    }

    float sampleValue(std::uint32_t channel, std::uint64_t index)
    {
        return static_cast<float>(channel) + static_cast<float>(index % 1000) / 1000.0F;
    }

    std::size_t wrongGrainBytes(std::vector<std::uint8_t> const& bytes, std::uint64_t index)
    {
        std::size_t wrong = 0;
        for (std::size_t offset = 0; offset < bytes.size(); ++offset)
        {
            wrong += bytes[offset] != grainByte(index, offset) ? 1 : 0;
        }
        return wrong;
    }

    void checkFedGrains(std::vector<Received> const& received, std::size_t grainBytes)
    {
        for (auto const& buffer : received)
        {
            INFO("grain ", buffer.offset);
            REQUIRE(buffer.bytes.size() == grainBytes);
            CHECK(wrongGrainBytes(buffer.bytes, buffer.offset) == 0);
        }
    }

    std::size_t wrongSamples(std::vector<std::vector<float>> const& channels, std::uint64_t firstIndex, std::size_t samples)
    {
        std::size_t wrong = 0;
        for (std::uint32_t channel = 0; channel < channels.size(); ++channel)
        {
            if (channels[channel].size() != samples)
            {
                wrong += samples;
                continue;
            }
            for (std::size_t k = 0; k < samples; ++k)
            {
                wrong += channels[channel][k] != sampleValue(channel, firstIndex + k) ? 1 : 0;
            }
        }
        return wrong;
    }

    std::vector<std::uint8_t> dataPayload(std::uint64_t index, mxlRational rate)
    {
        namespace patterns = mxl::patterns;
        // A CEA-708 caption packet (DID 0x61, SDID 0x01) of 0 to 30 user data words.
        std::vector<std::uint16_t> words;
        for (std::uint64_t word = 0; word < index % 31; ++word)
        {
            words.push_back(media::withParity(static_cast<std::uint8_t>(index + word)));
        }
        std::array const packets{patterns::grainTimecodePacket(index, rate),
                                 media::makeAncPacket(false, 10, 0, 0x61, 0x01, std::move(words))};
        return media::writeRfc8331(packets);
    }

    FlowProbe::FlowProbe(TempDomain const& domain, std::string const& flowId)
        : _instance{domain.path()}
        , _reader{_instance, flowId}
    {
    }

    std::uint64_t FlowProbe::head() const
    {
        mxlFlowRuntimeInfo runtime{};
        REQUIRE(mxlFlowReaderGetRuntimeInfo(_reader.get(), &runtime) == MXL_STATUS_OK);
        return runtime.headIndex;
    }

    mxlFlowConfigInfo FlowProbe::config() const
    {
        mxlFlowConfigInfo config{};
        REQUIRE(mxlFlowReaderGetConfigInfo(_reader.get(), &config) == MXL_STATUS_OK);
        return config;
    }

    std::vector<std::uint8_t> FlowProbe::grain(std::uint64_t index, std::uint64_t timeoutNs) const
    {
        mxlGrainInfo info{};
        std::uint8_t* payload = nullptr;
        INFO("grain ", index);
        REQUIRE(mxlFlowReaderGetGrain(_reader.get(), index, timeoutNs, &info, &payload) == MXL_STATUS_OK);
        CHECK((info.flags & MXL_GRAIN_FLAG_INVALID) == 0);
        return {payload, payload + info.grainSize};
    }

    std::uint32_t FlowProbe::flags(std::uint64_t index) const
    {
        mxlGrainInfo info{};
        std::uint8_t* payload = nullptr;
        INFO("grain ", index);
        REQUIRE(mxlFlowReaderGetGrain(_reader.get(), index, 0, &info, &payload) == MXL_STATUS_OK);
        return info.flags;
    }

    std::vector<std::vector<float>> FlowProbe::samples(std::uint64_t lastIndex, std::size_t count) const
    {
        mxlWrappedMultiBufferSlice slices{};
        INFO("samples ", count, " ending at ", lastIndex);
        REQUIRE(mxlFlowReaderGetSamples(_reader.get(), lastIndex, count, 0, &slices) == MXL_STATUS_OK);
        std::vector<std::vector<float>> channels(slices.count);
        for (std::size_t channel = 0; channel < slices.count; ++channel)
        {
            for (auto const& fragment : slices.base.fragments)
            {
                auto const* const first =
                    reinterpret_cast<float const*>(static_cast<std::uint8_t const*>(fragment.pointer) + channel * slices.stride);
                channels[channel].insert(channels[channel].end(), first, first + fragment.size / sizeof(float));
            }
        }
        return channels;
    }

    FlowFeeder::FlowFeeder(TempDomain const& domain, std::string const& definition, std::uint64_t invalidEvery, DataPayload payload)
        : _instance{domain.path()}
        , _writer{_instance, definition, {}, "of the test"}
        , _invalidEvery{invalidEvery}
        , _dataPayload{payload}
    {
        _thread = std::jthread{[this](std::stop_token const& stop)
                               { _writer.config().common.format == MXL_DATA_FORMAT_AUDIO ? writeSamples(stop) : writeGrains(stop); }};
    }

    void FlowFeeder::writeGrains(std::stop_token const& stop)
    {
        auto const& rate = _writer.config().common.grainRate;
        for (auto index = mxlGetCurrentIndex(&rate); !stop.stop_requested(); ++index)
        {
            mxlSleepUntil(mxlIndexToTimestamp(&rate, index));
            mxlGrainInfo info{};
            std::uint8_t* payload = nullptr;
            if (mxlFlowWriterOpenGrain(_writer.get(), index, &info, &payload) != MXL_STATUS_OK)
            {
                return;
            }
            fillGrain(index, payload, info.grainSize);
            info.flags = _invalidEvery != 0 && index % _invalidEvery == 0 ? MXL_GRAIN_FLAG_INVALID : 0;
            info.validSlices = info.totalSlices;
            mxlFlowWriterCommitGrain(_writer.get(), &info);
        }
    }

    void FlowFeeder::fillGrain(std::uint64_t index, std::uint8_t* payload, std::size_t size) const
    {
        if (_writer.config().common.format != MXL_DATA_FORMAT_DATA)
        {
            for (std::size_t offset = 0; offset < size; ++offset)
            {
                payload[offset] = grainByte(index, offset);
            }
            return;
        }
        // Payloads are a few dozen bytes; a grain holds 4096.
        auto const bytes = _dataPayload(index, _writer.config().common.grainRate);
        auto const used = std::min(bytes.size(), size);
        std::memcpy(payload, bytes.data(), used);
        std::fill(payload + used, payload + size, std::uint8_t{0});
    }

    void FlowFeeder::writeSamples(std::stop_token const& stop)
    {
        auto const& rate = _writer.config().common.grainRate;
        for (auto last = (mxlGetCurrentIndex(&rate) / audioBatchSamples + 1) * audioBatchSamples; !stop.stop_requested();
             last += audioBatchSamples)
        {
            mxlSleepUntil(mxlIndexToTimestamp(&rate, last));
            mxlMutableWrappedMultiBufferSlice slices{};
            if (mxlFlowWriterOpenSamples(_writer.get(), last, audioBatchSamples, &slices) != MXL_STATUS_OK)
            {
                return;
            }
            for (std::size_t channel = 0; channel < slices.count; ++channel)
            {
                auto index = last - audioBatchSamples + 1;
                for (auto const& fragment : slices.base.fragments)
                {
                    auto* const samples = reinterpret_cast<float*>(static_cast<std::uint8_t*>(fragment.pointer) + channel * slices.stride);
                    for (std::size_t i = 0; i < fragment.size / sizeof(float); ++i)
                    {
                        samples[i] = sampleValue(static_cast<std::uint32_t>(channel), index++);
                    }
                }
            }
            mxlFlowWriterCommitSamples(_writer.get());
        }
    }
}
