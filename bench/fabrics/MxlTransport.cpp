// libmxl-fabrics driven through its public C API only: a target whose flow writer receives the grains, and an
// initiator that writes and commits grains into its own source flow and transfers each one.
#include "CheckMxlStatus.hpp"
#include "FabricsInitiator.hpp"
#include "FabricsTarget.hpp"
#include "MxlEnd.hpp"
#include "Transport.hpp"

#include <mxl/flow.h>

#include <fmt/format.h>

#include <cstring>
#include <vector>

namespace mxl::bench
{
    namespace
    {
        constexpr char const* flowId = "5f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0";

        // The 50 Hz v210 flow both ends use; the ring holds `ringSlots` grains because the domain's history says so.
        std::string flowDefinition(GrainFormat const& format)
        {
            return fmt::format(R"({{"id":"{}","format":"urn:x-nmos:format:video","label":"mxl-fabrics-bench",)"
                               R"("tags":{{"urn:x-nmos:tag:grouphint/v1.0":["mxl-fabrics-bench:Video"]}},)"
                               R"("media_type":"video/v210","grain_rate":{{"numerator":50,"denominator":1}},)"
                               R"("frame_width":{},"frame_height":{},"interlace_mode":"progressive"}})",
                               flowId, format.width, format.height);
        }

        class MxlTarget final : public TargetTransport
        {
        public:
            explicit MxlTarget(TransportConfig const& config)
                : _end{config.domain, flowDefinition(config.format), nullptr, config.backend}
                , _target{_end, config.provider, config.depth}
            {
            }

            std::vector<char> ticket() const override
            {
                return _target.ticket();
            }

            std::optional<std::uint64_t> readGrain() override
            {
                return _target.readGrain();
            }

        private:
            MxlEnd _end;
            FabricsTarget _target;
        };

        // The payload is written once per ring slot, so that the measured loop only opens and commits (no copy per
        // grain). Returns the slices of a grain.
        std::uint16_t fillRingOnce(MxlEnd const& end)
        {
            std::uint16_t totalSlices = 0;
            for (std::uint32_t slot = 0; slot < end.flowConfig().discrete.grainCount; ++slot)
            {
                mxlGrainInfo grain;
                std::uint8_t* payload = nullptr;
                checkMxlStatus(mxlFlowWriterOpenGrain(end.writer(), slot, &grain, &payload), "mxlFlowWriterOpenGrain (fill)");
                totalSlices = grain.totalSlices;
                std::memset(payload, 0x5a, grain.grainSize);
                checkMxlStatus(mxlFlowWriterCancelGrain(end.writer()), "mxlFlowWriterCancelGrain (fill)");
            }
            return totalSlices;
        }

        class MxlInitiator final : public InitiatorTransport
        {
        public:
            MxlInitiator(TransportConfig const& config, std::vector<char> const& ticket)
                : _end{config.domain, flowDefinition(config.format), nullptr, config.backend}
                , _totalSlices{fillRingOnce(_end)}
                , _initiator{_end, flowId, config.provider, config.depth, ticket}
            {
            }

            void stage(std::uint64_t index) override
            {
                mxlGrainInfo grain;
                std::uint8_t* payload = nullptr;
                checkMxlStatus(mxlFlowWriterOpenGrain(_end.writer(), index, &grain, &payload), "mxlFlowWriterOpenGrain");
                grain.validSlices = grain.totalSlices;
                checkMxlStatus(mxlFlowWriterCommitGrain(_end.writer(), &grain), "mxlFlowWriterCommitGrain");
            }

            bool transfer(std::uint64_t index) override
            {
                return _initiator.transferGrain(index, _totalSlices);
            }

            bool progress() override
            {
                return _initiator.progress();
            }

        private:
            MxlEnd _end;
            std::uint16_t _totalSlices;
            FabricsInitiator _initiator;
        };
    }

    bool mxlTransportAvailable() noexcept
    {
        return true;
    }

    std::unique_ptr<TargetTransport> makeMxlTarget(TransportConfig const& config)
    {
        return std::make_unique<MxlTarget>(config);
    }

    std::unique_ptr<InitiatorTransport> makeMxlInitiator(TransportConfig const& config, std::vector<char> const& ticket)
    {
        return std::make_unique<MxlInitiator>(config, ticket);
    }
}
