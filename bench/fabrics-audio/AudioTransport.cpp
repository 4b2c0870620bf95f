#include "AudioTransport.hpp"

#include "CheckMxlStatus.hpp"
#include "FabricsInitiator.hpp"
#include "FabricsTarget.hpp"
#include "MxlEnd.hpp"

#include <mxl/flow.h>

#include <fmt/format.h>

namespace mxl::bench
{
    namespace
    {
        constexpr char const* flowId = "c4a1e7d2-58b3-4f60-9e21-7d3b5a08f614";
        // Batch-aligned and far from zero, as TAI-derived sample indices are.
        constexpr std::uint64_t baseBatches = 1'000'000'000;

        std::uint64_t headOf(std::uint64_t index, AudioShape const& shape)
        {
            return (baseBatches + index + 1) * shape.batchSamples;
        }

        std::string flowDefinition(AudioShape const& shape)
        {
            return fmt::format(R"({{"id":"{}","format":"urn:x-nmos:format:audio","label":"mxl-fabrics-audio-bench",)"
                               R"("tags":{{"urn:x-nmos:tag:grouphint/v1.0":["mxl-fabrics-audio-bench:Audio"]}},)"
                               R"("media_type":"audio/float32","sample_rate":{{"numerator":48000,"denominator":1}},)"
                               R"("bit_depth":32,"channel_count":{}}})",
                               flowId, shape.channels);
        }

        std::string batchOptions(AudioShape const& shape)
        {
            return fmt::format(R"({{"maxCommitBatchSizeHint":{0},"maxSyncBatchSizeHint":{0}}})", shape.batchSamples);
        }

        class AudioTarget final : public TargetTransport
        {
        public:
            AudioTarget(TransportConfig const& config, AudioShape const& shape)
                : _shape{shape}
                , _end{config.domain, flowDefinition(shape), batchOptions(shape).c_str()}
                , _target{_end, config.provider, config.depth}
            {
            }

            std::vector<char> ticket() const override
            {
                return _target.ticket();
            }

            std::optional<std::uint64_t> readGrain() override
            {
                auto const head = _target.readSamplesHead();
                if (!head)
                {
                    return std::nullopt;
                }
                return *head / _shape.batchSamples - baseBatches - 1;
            }

        private:
            AudioShape _shape;
            MxlEnd _end;
            FabricsTarget _target;
        };

        class AudioInitiator final : public InitiatorTransport
        {
        public:
            // No cqDepth for the initiator: the library sizes its queue, as in every earlier run of this bench, so that the
            // rows stay comparable.
            AudioInitiator(TransportConfig const& config, AudioShape const& shape, std::vector<char> const& ticket)
                : _shape{shape}
                , _end{config.domain, flowDefinition(shape), batchOptions(shape).c_str()}
                , _initiator{_end, flowId, config.provider, std::nullopt, ticket}
            {
            }

            // The source's work: open and commit the batch (the samples are whatever the ring holds; no copy per batch).
            void stage(std::uint64_t index) override
            {
                mxlMutableWrappedMultiBufferSlice slices{};
                checkMxlStatus(mxlFlowWriterOpenSamples(_end.writer(), headOf(index, _shape), _shape.batchSamples, &slices),
                               "mxlFlowWriterOpenSamples");
                checkMxlStatus(mxlFlowWriterCommitSamples(_end.writer()), "mxlFlowWriterCommitSamples");
            }

            bool transfer(std::uint64_t index) override
            {
                return _initiator.transferSamples(headOf(index, _shape), _shape.batchSamples);
            }

            bool progress() override
            {
                return _initiator.progress();
            }

        private:
            AudioShape _shape;
            MxlEnd _end;
            FabricsInitiator _initiator;
        };
    }

    std::unique_ptr<TargetTransport> makeMxlAudioTarget(TransportConfig const& config, AudioShape const& shape)
    {
        return std::make_unique<AudioTarget>(config, shape);
    }

    std::unique_ptr<InitiatorTransport> makeMxlAudioInitiator(TransportConfig const& config, AudioShape const& shape,
                                                              std::vector<char> const& ticket)
    {
        return std::make_unique<AudioInitiator>(config, shape, ticket);
    }
}
