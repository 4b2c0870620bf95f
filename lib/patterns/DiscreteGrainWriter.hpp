// Writes one grain per grain period into a discrete flow (video or data). Grain i is due at its TAI timestamp; with
// several commit batches per grain, batch k of n is due k/n of a grain period later, so readers of partial grains see
// validSlices grow over the period. A grain whose period has passed before its turn is committed with
// MXL_GRAIN_FLAG_INVALID, and grains already out of the ring are skipped. Device flows are painted in host memory and
// copied to the device through libmxl (mxl/device.h).
#pragma once

#include "ScheduledTask.hpp"
#include "WriterStats.hpp"

#include <mxl/flow.h>

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace mxl::patterns
{
    // Fills slices [firstSlice, firstSlice + sliceCount) of grain `grainIndex` into the whole-grain `payload`.
    using GrainPainter =
        std::function<void(std::uint64_t grainIndex, std::uint32_t firstSlice, std::uint32_t sliceCount, std::span<std::uint8_t> payload)>;

    class DiscreteGrainWriter : public ScheduledTask
    {
    public:
        // `grainLimit` 0 means until stopped. `slicesPerCommit` is at least 1; a value of totalSlices or more commits
        // whole grains.
        DiscreteGrainWriter(mxlFlowWriter writer, mxlFlowConfigInfo const& config, std::uint32_t slicesPerCommit, std::uint64_t grainLimit,
                            GrainPainter painter, WriterStats& stats);

        [[nodiscard]] std::uint64_t nextDeadlineNs() const override;
        void run(std::uint64_t lateNs) override;
        [[nodiscard]] bool finished() const override;

    private:
        mxlFlowWriter _writer;
        mxlRational _rate;
        std::uint64_t _ringGrains;
        std::uint32_t _totalSlices;
        std::uint32_t _slicesPerCommit;
        std::uint32_t _batchesPerGrain;
        std::uint64_t _grainLimit;
        GrainPainter _painter;
        WriterStats& _stats;

        std::uint64_t _index;
        std::uint32_t _batch = 0;
        std::uint64_t _grainsDone = 0;
        mxlGrainInfo _grain{};
        std::uint8_t* _payload = nullptr;
        // A device flow's grains are painted here, one grain per ring slot (so that a painter that paints each slot
        // once keeps working), and copied to the device payload after each batch.
        std::vector<std::uint8_t> _hostSlots;
        std::size_t _grainBytes = 0;

        void startGrain(std::uint64_t lateNs);
        void commitBatch();
        void finishGrain();
        void skipUnreachableGrains();
    };
}
