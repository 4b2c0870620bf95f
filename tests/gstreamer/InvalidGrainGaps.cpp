#include "InvalidGrainGaps.hpp"

#include <mxl/time.h>

#include <doctest/doctest.h>

#include <algorithm>

namespace mxl::test::gst
{
    std::uint64_t checkInvalidGrainsBecameGaps(Pipeline const& pipeline, std::vector<Received> const& received,
                                               std::vector<GstClockTime> const& gaps, mxlRational rate, std::uint64_t invalidEvery,
                                               std::function<std::vector<std::uint8_t>(Received const&)> const& expectedBytes)
    {
        std::uint64_t skippedInvalid = 0;
        for (std::size_t i = 1; i < received.size(); ++i)
        {
            auto const& buffer = received[i];
            INFO("buffer ", i, " of grain ", buffer.offset);
            CHECK(buffer.offset % invalidEvery != 0);
            CHECK(buffer.bytes == expectedBytes(buffer));
            for (auto index = received[i - 1].offset + 1; index < buffer.offset; ++index)
            {
                INFO("skipped grain ", index);
                CHECK(index % invalidEvery == 0);
                auto const gapTime = mxlIndexToTimestamp(&rate, index) - pipeline.baseTime();
                CHECK(std::find(gaps.begin(), gaps.end(), gapTime) != gaps.end());
                ++skippedInvalid;
            }
        }
        return skippedInvalid;
    }
}
