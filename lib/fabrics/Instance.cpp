#include "Instance.hpp"

#include "RcInitiator.hpp"
#include "RcTarget.hpp"
#include "RdmInitiator.hpp"
#include "RdmTarget.hpp"
#include "SetupOptions.hpp"
#include "common/Status.hpp"

#include <algorithm>

namespace mxl::fabrics
{
    namespace
    {
        FlowMemory const& memoryOf(mxlFlowWriter writer)
        {
            if (writer == nullptr)
            {
                fail(MXL_ERR_INVALID_ARG, "the target config has no flow writer");
            }
            return writer->memory;
        }

        FlowMemory const& memoryOf(mxlFlowReader reader)
        {
            if (reader == nullptr)
            {
                fail(MXL_ERR_INVALID_ARG, "the initiator config has no flow reader");
            }
            return reader->memory;
        }

        // Default target CQ: room for a completion per receive the provider can hold, at least 64.
        std::size_t targetCqDepth(SetupOptions const& options, fi_info const& info)
        {
            return options.cqDepth.value_or(std::clamp<std::size_t>(info.rx_attr->size, 64, 4096));
        }
    }

    void Target::setup(mxlFabricsTargetConfig const& config, char const* options)
    {
        auto const parsed = SetupOptions::parse(options);
        auto const& memory = memoryOf(config.writer);
        auto const sampleFlow = carriesSamples(memory);
        auto const geometry = sampleFlow ? std::nullopt : std::optional<GrainGeometry>{GrainGeometry::of(memory, "target")};
        auto selected = selectInterface(config.interface, Role::Target);
        auto const depth = targetCqDepth(parsed, *selected.info.get());

        // Re-setup drops the previous endpoint first so that it can listen on the same address.
        ingress.reset();
        transport.reset();
        samples.reset();
        if (sampleFlow)
        {
            samples.emplace(config.writer);
        }
        auto const regions = sampleFlow ? samples->bounceBuffer().spans() : grainSpans(memory, *geometry);
        if (selected.traits->endpointType == FI_EP_MSG)
        {
            transport = std::make_unique<RcTarget>(std::move(selected), regions, depth);
        }
        else
        {
            transport = std::make_unique<RdmTarget>(std::move(selected), regions, depth);
        }
        if (!sampleFlow)
        {
            ingress.emplace(config.writer, *geometry);
        }
    }

    TargetTransport& Target::setUp()
    {
        if (!transport)
        {
            fail(MXL_ERR_INVALID_STATE, "the target is not set up");
        }
        return *transport;
    }

    TargetInfo Target::ticket() const
    {
        auto info = transport->ticket();
        if (samples)
        {
            info.bounceBuffer = samples->bounceBuffer().info();
        }
        return info;
    }

    std::optional<std::uint64_t> Target::readGrain(std::chrono::milliseconds timeout)
    {
        auto& arrivals = setUp();
        if (!ingress)
        {
            fail(MXL_ERR_INVALID_STATE, "this target's flow carries samples: read it with ReadSamples, not ReadGrain");
        }
        auto const immediate = arrivals.nextArrival(timeout);
        if (!immediate)
        {
            return std::nullopt;
        }
        return ingress->arrive(*immediate);
    }

    std::optional<SampleArrival> Target::readSamples(std::chrono::milliseconds timeout)
    {
        auto& arrivals = setUp();
        if (!samples)
        {
            fail(MXL_ERR_INVALID_STATE, "this target's flow carries grains: read it with ReadGrain, not ReadSamples");
        }
        auto const immediate = arrivals.nextArrival(timeout);
        if (!immediate)
        {
            return std::nullopt;
        }
        return samples->arrive(*immediate);
    }

    std::unique_ptr<Initiator> setupInitiator(mxlFabricsInitiatorConfig const& config, char const* options)
    {
        auto const parsed = SetupOptions::parse(options);
        auto const& memory = memoryOf(config.reader);
        auto selected = selectInterface(config.interface, Role::Initiator);
        auto const depth = parsed.cqDepth.value_or(0);
        if (selected.traits->endpointType == FI_EP_MSG)
        {
            return std::make_unique<RcInitiator>(std::move(selected), memory, config.interface.caps, depth);
        }
        return std::make_unique<RdmInitiator>(std::move(selected), memory, config.interface.caps, depth);
    }
}
