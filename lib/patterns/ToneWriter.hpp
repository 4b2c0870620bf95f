// Writes the test tone (patterns/SineTone.hpp) into an audio flow in batches of the flow's commit hint. Batches end on
// multiples of the batch size, and the batch ending at sample e is due at e's TAI timestamp. A batch whose successor
// is already due is written as silence; batches already out of the readable half of the ring are skipped. With a tone
// table (--prerendered) the samples are copied from it instead of computed.
#pragma once

#include "ScheduledTask.hpp"
#include "ToneTable.hpp"
#include "WriterStats.hpp"

#include <mxl/flow.h>

#include <cstdint>
#include <optional>

namespace mxl::patterns
{
    class ToneWriter : public ScheduledTask
    {
    public:
        // `batchLimit` 0 means until stopped.
        ToneWriter(mxlFlowWriter writer, mxlFlowConfigInfo const& config, std::uint64_t batchLimit, bool prerendered, WriterStats& stats);

        [[nodiscard]] std::uint64_t nextDeadlineNs() const override;
        void run(std::uint64_t lateNs) override;
        [[nodiscard]] bool finished() const override;

        [[nodiscard]] std::uint64_t samplesPerBatch() const noexcept
        {
            return _batchSamples;
        }

    private:
        mxlFlowWriter _writer;
        mxlRational _rate;
        std::uint64_t _batchSamples;
        std::uint64_t _readableSamples;
        std::uint64_t _batchLimit;
        WriterStats& _stats;
        std::optional<patterns::ToneTable> _table;

        // The last sample of the next batch.
        std::uint64_t _batchEnd;
        std::uint64_t _batchesDone = 0;

        void skipUnreachableBatches();
        void writeBatch(bool silence);
    };
}
