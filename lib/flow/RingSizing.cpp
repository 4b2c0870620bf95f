// How many grains or samples a flow's ring holds for the domain's history duration, by the SDK's formulas
// (lib/internal/src/Instance.cpp; docs/timing.md, "Rings at a glance"). The results are written into the flow header,
// and readers always take them from there, so these formulas only have to agree with the SDK for flows to look alike,
// not for interop.
#include "common/Status.hpp"
#include "flow/FlowDefinition.hpp"

#include <limits>

namespace mxl
{
    namespace
    {
        __extension__ typedef unsigned __int128 u128;

        constexpr std::uint64_t nsPerSecond = 1'000'000'000;
        constexpr std::uint32_t pageBytes = 4096;

        // floor(historyNs × rate / nsPerUnit): ticks of `rate` in the history, counted per nsPerUnit instead of per second
        // to count several windows. 128 bits: 2^64 ns × 2^63 cannot overflow.
        u128 ticksIn(mxlRational rate, std::uint64_t historyNs, std::uint64_t nsPerUnit)
        {
            if (rate.numerator <= 0 || rate.denominator <= 0)
            {
                fail(MXL_ERR_UNKNOWN, "ring sizing: the rate must be positive, got {}/{}", rate.numerator, rate.denominator);
            }
            return u128{historyNs} * static_cast<u128>(rate.numerator) / (u128{nsPerUnit} * static_cast<u128>(rate.denominator));
        }

        std::uint32_t checkedLength(u128 length, char const* what, std::uint64_t historyNs)
        {
            if (length > std::numeric_limits<std::uint32_t>::max())
            {
                fail(MXL_ERR_UNKNOWN, "ring sizing: a history duration of {} ns needs more than 4294967295 {}", historyNs, what);
            }
            return static_cast<std::uint32_t>(length);
        }
    }

    // The writer keeps the slot after the head (the tail, since the ring wraps) for the grain it is filling, so a ring
    // of one slot would never have a readable grain, and the SDK's 0 slots (very low rates) would divide by zero.
    std::uint32_t discreteGrainCount(mxlRational rate, std::uint64_t historyNs)
    {
        auto const grains = ticksIn(rate, historyNs, nsPerSecond);
        return grains < 2 ? 2 : checkedLength(grains, "grains", historyNs);
    }

    // Only half of the ring is readable (the other half is the writer's), so it spans two history windows. Whole pages
    // per channel keep every channel ring page-aligned in the channels file.
    std::uint32_t continuousBufferLength(mxlRational rate, std::uint64_t historyNs, std::uint32_t sampleWordBytes)
    {
        if (sampleWordBytes == 0 || pageBytes % sampleWordBytes != 0)
        {
            fail(MXL_ERR_UNKNOWN, "ring sizing: a sample word of {} bytes does not divide a {}-byte page", sampleWordBytes, pageBytes);
        }
        auto const samplesPerPage = pageBytes / sampleWordBytes;
        auto const samples = ticksIn(rate, historyNs, nsPerSecond / 2);
        auto const pages = samples == 0 ? 1 : (samples + samplesPerPage - 1) / samplesPerPage;
        return checkedLength(pages * samplesPerPage, "samples", historyNs);
    }
}
