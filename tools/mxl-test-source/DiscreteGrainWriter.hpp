// Writes one grain per grain period into a discrete flow (video or data). Grain i is due at its TAI timestamp; with
// several commit batches per grain, batch k of n is due k/n of a grain period later, so readers of partial grains see
// validSlices grow over the period. A grain whose period has passed before its turn is committed with
// MXL_GRAIN_FLAG_INVALID, and grains already out of the ring are skipped.
#pragma once

#include "ScheduledTask.hpp"
#include "WriterStats.hpp"

#include <mxl/flow.h>

#include <cstdint>
#include <functional>
#include <span>

namespace mxl::tools::testsource
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

        void startGrain(std::uint64_t lateNs);
        void commitBatch();
        void finishGrain();
        void skipUnreachableGrains();
    };
}
