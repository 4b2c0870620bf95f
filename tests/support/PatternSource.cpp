#include "PatternSource.hpp"

#include "Checksum.hpp"
#include "GrainPattern.hpp"

#include <mxl/device.h>
#include <mxl/flow.h>
#include <mxl/mxl.h>
#include <mxl/time.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace mxl::test
{
    namespace
    {
        // Enough history for any checker; older checksums are dropped so a long run stays small.
        constexpr std::size_t keptChecksums = 20'000;
    }

    PatternSource::PatternSource(std::string const& domain, std::filesystem::path const& definition, std::uint16_t slicesPerCommit,
                                 std::string const& writerOptions)
        : SourceFlow{domain, definition, writerOptions}
        , _slicesPerCommit{slicesPerCommit}
    {
        _thread = std::jthread{[this](std::stop_token const& stop) { writeLoop(stop); }};
    }

    std::optional<std::uint64_t> PatternSource::checksum(std::uint64_t index) const
    {
        std::lock_guard lock{_mutex};
        auto const found = _checksums.find(index);
        return found == _checksums.end() ? std::nullopt : std::optional{found->second};
    }

    void PatternSource::record(std::uint64_t index, std::uint64_t checksum)
    {
        std::lock_guard lock{_mutex};
        _checksums[index] = checksum;
        if (_checksums.size() > keptChecksums)
        {
            _checksums.erase(_checksums.begin());
        }
    }

    void PatternSource::writeLoop(std::stop_token const& stop)
    {
        auto const& config = _writer.config();
        auto const rate = config.common.grainRate;
        auto const grainNs = static_cast<std::uint64_t>(1'000'000'000LL * rate.denominator / rate.numerator);
        auto index = ::mxlGetCurrentIndex(&rate);
        auto const onDevice = config.common.payloadLocation == MXL_PAYLOAD_LOCATION_DEVICE_MEMORY;
        std::vector<std::uint8_t> pattern;
        while (!stop.stop_requested())
        {
            ::mxlSleepUntil(::mxlIndexToTimestamp(&rate, index));
            mxlGrainInfo grain{};
            std::uint8_t* payload = nullptr;
            if (::mxlFlowWriterOpenGrain(_writer.get(), index, &grain, &payload) != MXL_STATUS_OK)
            {
                // That grain is missing, and the next ones are still written: a test that broke the flow sees it.
                ++index;
                continue;
            }
            grain.flags = 0;
            auto const total = grain.totalSlices;
            auto const batch = _slicesPerCommit == 0 ? total : std::min(_slicesPerCommit, total);
            auto const batches = (total + batch - 1) / batch;
            pattern.resize(grain.grainSize);
            fillGrainPattern(pattern.data(), pattern.size(), index);
            // Recorded before the final commit: a target may have the grain before this thread runs again.
            record(index, fnv1a(pattern.data(), pattern.size()));
            for (std::uint16_t start = 0; start < total; start = static_cast<std::uint16_t>(start + batch))
            {
                auto const end = static_cast<std::uint16_t>(std::min<unsigned>(start + batch, total));
                // Each plane holds `total` slices of its own size, one plane after the other.
                std::size_t planeOffset = 0;
                for (auto const sliceSize : config.discrete.sliceSizes)
                {
                    auto const begin = planeOffset + std::size_t{start} * sliceSize;
                    auto const bytes = static_cast<std::size_t>(end - start) * sliceSize;
                    if (onDevice)
                    {
                        ::mxlFlowWriterCopyToDevice(_writer.get(), payload + begin, pattern.data() + begin, bytes);
                    }
                    else
                    {
                        std::memcpy(payload + begin, pattern.data() + begin, bytes);
                    }
                    planeOffset += std::size_t{total} * sliceSize;
                }
                grain.validSlices = end;
                ::mxlFlowWriterCommitGrain(_writer.get(), &grain);
                if (end < total)
                {
                    ::mxlSleepForNs(grainNs / 2 / batches);
                }
            }
            ++_written;
            ++index;
        }
    }
}
