#include "DiscreteFlowWriter.hpp"

#include "common/SharedAtomics.hpp"

#include "common/Status.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>

namespace mxl
{
    mxlGrainInfo DiscreteFlowWriter::grainInfo(std::uint64_t index) const noexcept
    {
        mxlGrainInfo grain;
        std::memcpy(&grain, &files().grainHeader(index).info, sizeof grain);
        return grain;
    }

    void DiscreteFlowWriter::openGrain(std::uint64_t index, mxlGrainInfo& grain, std::uint8_t*& payload)
    {
        auto& header = files().grainHeader(index).info;
        if (loadAcquire(header.index) != index)
        {
            // Without the reset a recycled slot would show the previous occupant's slices as valid (#717).
            storeRelaxed(header.validSlices, std::uint16_t{0});
            storeRelaxed(header.flags, std::uint32_t{0});
            storeRelease(header.index, index);
            // The new index must be visible before any byte of the new payload: an initiator that still finds the old
            // index after its transfer completed knows that the payload it sent was not touched (docs/fabrics.md).
            std::atomic_thread_fence(std::memory_order_release);
        }
        std::memcpy(&grain, &header, sizeof grain);
        payload = files().grainPayload(index);
        _openIndex = index;
    }

    void DiscreteFlowWriter::commitGrain(mxlGrainInfo const& grain)
    {
        if (!_openIndex)
        {
            fail(MXL_ERR_INVALID_ARG, "flow {}: committing grain {} but no grain is open", id(), grain.index);
        }
        if (grain.index != *_openIndex)
        {
            fail(MXL_ERR_INVALID_ARG, "flow {}: committing grain {}, expected the open grain {}", id(), grain.index, *_openIndex);
        }
        // version, size, grainSize and totalSlices describe the flow's geometry: a caller's header must not change them.
        auto& header = files().grainHeader(grain.index).info;
        std::memcpy(header.reserved, grain.reserved, sizeof header.reserved);
        auto const validSlices = std::min(grain.validSlices, header.totalSlices);
        storeRelaxed(header.flags, grain.flags);
        storeRelaxed(header.index, grain.index);
        storeRelease(header.validSlices, validSlices);
        advanceHead(grain.index);
        wakeReaders();
        if (validSlices == header.totalSlices)
        {
            _openIndex.reset();
        }
    }
}
