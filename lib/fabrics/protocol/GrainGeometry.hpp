// Where the bytes of a discrete grain are in its registered region, and which ranges a slice transfer writes.
// Region layout (MXL): [mxlGrainInfo padded to 8192 bytes][plane 0: totalSlices × sliceSizes[0]][plane 1 ...].
#pragma once

#include <mxl/flowinfo.h>

#include "common/FlowMemory.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <boost/container/small_vector.hpp>

namespace mxl::fabrics
{
    // A byte range of a grain region; the same offsets apply at both ends.
    struct GrainRange
    {
        std::size_t offset = 0;
        std::size_t length = 0;

        bool operator==(GrainRange const&) const = default;
    };

    // A grain's ranges: one per plane (two for v210a), inline so that planning a transfer allocates nothing.
    using GrainRanges = boost::container::small_vector<GrainRange, 4>;

    class GrainGeometry
    {
    public:
        GrainGeometry(std::array<std::uint32_t, MXL_MAX_PLANES_PER_GRAIN> const& sliceSizes, std::uint16_t totalSlices);

        // Reads the geometry of a discrete flow's mapping: slice sizes from the flow info, totalSlices from grain 0.
        static GrainGeometry of(FlowMemory const& memory, char const* role);

        [[nodiscard]] std::uint16_t totalSlices() const noexcept
        {
            return _totalSlices;
        }

        [[nodiscard]] std::size_t payloadBytes() const noexcept;

        // The registered length of one grain: header and every plane.
        [[nodiscard]] std::size_t regionBytes() const noexcept;

        // The payload ranges of slices [start, end), without the header (which travels last, as the commit): one range
        // for the whole payload, otherwise one per active plane. Empty when start == end.
        [[nodiscard]] GrainRanges payloadRanges(std::uint16_t start, std::uint16_t end) const;

    private:
        std::array<std::uint32_t, MXL_MAX_PLANES_PER_GRAIN> _sliceSizes;
        std::uint16_t _totalSlices;
    };

    // Splits ranges longer than `maxMessageBytes` into consecutive pieces (the provider's max_msg_size).
    [[nodiscard]] GrainRanges splitRanges(GrainRanges const& ranges, std::size_t maxMessageBytes);
}
