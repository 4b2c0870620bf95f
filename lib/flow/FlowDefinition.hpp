// An NMOS flow definition (JSON) parsed and validated, with the ring geometry it implies.
#pragma once

#include <mxl/dataformat.h>
#include <mxl/flowinfo.h>
#include <mxl/rational.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mxl
{
    struct FlowDefinition
    {
        std::array<std::uint8_t, 16> id{};
        // Lowercase 8-4-4-4-12: the flow directory is "<idString>.mxl-flow".
        std::string idString;
        mxlDataFormat format = MXL_DATA_FORMAT_UNSPECIFIED;
        // Reduced; for interlaced video the field rate (numerator doubled).
        mxlRational rate{0, 1};
        std::string label;
        std::vector<std::string> groupHints;
        // "video/v210", "video/v210a", "video/smpte291"; empty for audio (not checked there, as in the SDK).
        std::string mediaType;

        // Video only.
        std::uint32_t frameWidth = 0;
        std::uint32_t frameHeight = 0;
        bool interlaced = false;

        // Discrete flows: bytes per slice of each plane, slices per grain, payload bytes per grain.
        std::array<std::uint32_t, MXL_MAX_PLANES_PER_GRAIN> sliceSizes{};
        std::uint16_t totalSlices = 0;
        std::uint32_t grainSize = 0;

        // Continuous flows.
        std::uint32_t channelCount = 0;
        std::uint32_t sampleWordBytes = 0;
    };

    // Throws mxl::Error(MXL_ERR_UNKNOWN) naming the field and the offending value when the definition is rejected.
    FlowDefinition parseFlowDefinition(std::string_view json);

    // Canonical lowercase form of a UUID (32 hex digits, hyphens optional, braces tolerated); nullopt when invalid.
    std::optional<std::string> canonicalUuid(std::string_view text);

    // The 16 bytes of a UUID in RFC 4122 order, accepting the same spellings as canonicalUuid; nullopt when invalid.
    std::optional<std::array<std::uint8_t, 16>> parseUuid(std::string_view text);

    // Lowercase 8-4-4-4-12 text of UUID bytes in RFC 4122 order.
    std::string formatUuid(std::array<std::uint8_t, 16> const& bytes);

    // Writer options (mxlCreateFlowWriter `options`): NULL or "" means none.
    struct FlowOptions
    {
        std::optional<std::uint32_t> maxCommitBatchSizeHint;
        std::optional<std::uint32_t> maxSyncBatchSizeHint;
        // "payloadLocation": "device" with "deviceIndex" N (docs/device-flows.md); nullopt: host memory.
        std::optional<std::int32_t> deviceIndex;
    };

    // Throws mxl::Error(MXL_ERR_UNKNOWN) naming the key and value when the options are rejected.
    FlowOptions parseFlowOptions(char const* json);

    inline constexpr std::uint64_t defaultHistoryDurationNs = 200'000'000;

    // The domain's history duration from <domain>/options.json, or the default (an unreadable file is logged).
    std::uint64_t readHistoryDurationNs(std::string const& domainPath);

    // Ring slots for a discrete flow: floor(history × rate), at least 2 so that one grain is always readable while
    // the writer holds the next slot.
    std::uint32_t discreteGrainCount(mxlRational rate, std::uint64_t historyNs);

    // Samples per channel ring: two history windows (only half the ring is readable), rounded up to a whole page.
    std::uint32_t continuousBufferLength(mxlRational rate, std::uint64_t historyNs, std::uint32_t sampleWordBytes);

    // The complete config of a new flow: common fields, hints (defaults or options), payload location and geometry.
    // Throws mxl::Error(MXL_ERR_UNSUPPORTED_OPERATION) for an audio flow asked into device memory.
    mxlFlowConfigInfo makeFlowConfig(FlowDefinition const& definition, FlowOptions const& options, std::uint64_t historyNs);
}
