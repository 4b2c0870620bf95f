// The two ends of one way of moving grains (plain libfabric, or libmxl-fabrics), as the measurement loop drives them.
// Each end lives in its own forked process; the target's ticket is the only thing handed from one to the other.
#pragma once

#include "GrainFormat.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mxl::bench
{
    struct TransportConfig
    {
        std::string provider;
        GrainFormat format;
        // Grains in flight and the size of every completion queue.
        std::uint32_t depth;
        // Grain slots of the target's ring and of the initiator's source ring.
        std::uint32_t ringSlots;
        // Each end's own directory (the mxl flow domain); the raw ends do not use it.
        std::string domain;
        // The libmxl-fabrics backend of the mxl ends; the raw ends do not use it.
        std::string backend;
    };

    class TargetTransport
    {
    public:
        virtual ~TargetTransport() = default;

        // What the initiator needs to reach this target, as opaque bytes.
        [[nodiscard]] virtual std::vector<char> ticket() const = 0;

        // The index of the next grain that arrived complete, or nullopt after waiting about 100 ms for none.
        virtual std::optional<std::uint64_t> readGrain() = 0;
    };

    class InitiatorTransport
    {
    public:
        virtual ~InitiatorTransport() = default;

        // Makes grain `index` ready to send (the source side of the work, outside the latency measurement).
        virtual void stage(std::uint64_t index) = 0;

        // Starts sending grain `index`; false when the transport has no room yet (call progress() and retry).
        virtual bool transfer(std::uint64_t index) = 0;

        // Reaps completions; true when nothing is outstanding.
        virtual bool progress() = 0;
    };

    std::unique_ptr<TargetTransport> makeRawTarget(TransportConfig const& config);
    std::unique_ptr<InitiatorTransport> makeRawInitiator(TransportConfig const& config, std::vector<char> const& ticket);

    // False when this build has no libmxl-fabrics; the make functions then throw.
    bool mxlTransportAvailable() noexcept;
    std::unique_ptr<TargetTransport> makeMxlTarget(TransportConfig const& config);
    std::unique_ptr<InitiatorTransport> makeMxlInitiator(TransportConfig const& config, std::vector<char> const& ticket);
}
