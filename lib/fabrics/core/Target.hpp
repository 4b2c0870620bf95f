// A target: set up (or set up again) from a config, it publishes a ticket and then reads what initiators wrote, driven
// by one thread.
#pragma once

#include <mxl/fabrics.h>

#include "common/RepeatLog.hpp"
#include "common/Status.hpp"
#include "fabrics/core/Backend.hpp"
#include "fabrics/core/ConnectionTally.hpp"
#include "fabrics/core/InitiatorAdmission.hpp"
#include "fabrics/core/TargetTransport.hpp"
#include "fabrics/protocol/GrainIngress.hpp"
#include "fabrics/protocol/SampleIngress.hpp"
#include "fabrics/protocol/TransportDomain.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace mxl::fabrics
{
    struct Target
    {
        // Every setup opens its transport over `backend`, which outlives the target.
        explicit Target(Backend& backend) noexcept;

        // Sample flows; declared first so that its bounce buffer outlives the transport's registrations of it.
        std::optional<SampleIngress> samples;
        // The interface the transport was opened over: it outlives the transport.
        std::unique_ptr<TransportDomain> domain;
        // A device flow registered directly: its payload ring, written by initiators through the ticket's payload regions.
        std::unique_ptr<TransportMemory> deviceRing;
        // A device flow's staging slots: registered with the transport, so they outlive it.
        std::unique_ptr<DeviceStaging> staging;
        // Asked by the transport about each connection request: it outlives the transport.
        InitiatorAdmission admission;
        // The initiators' connections over every setup.
        ConnectionTally connections;
        std::unique_ptr<TargetTransport> transport;
        std::optional<GrainIngress> ingress;

        void setup(mxlFabricsTargetConfig const& config, char const* options);
        // What the last setup published: a fresh id and epoch, the transport's address and regions, and bounceBufferInfo
        // for a sample flow.
        [[nodiscard]] TargetInfo const& ticket() const noexcept;
        // The next grain that arrived (published to local readers), or nullopt after `timeout`.
        std::optional<mxlFabricsGrainArrival> readGrain(std::chrono::milliseconds timeout);
        // The next sample batch that arrived (committed to the flow), or nullopt after `timeout`.
        std::optional<mxlFabricsSamplesArrival> readSamples(std::chrono::milliseconds timeout);

    private:
        Backend& _backend;
        TargetInfo _ticket;
        // Completions that named no slot or entry of this target, or an impossible range (a broken or hostile initiator):
        // each kind is logged once, with how to tell it; all are counted and skipped.
        std::uint64_t _malformedArrivals = 0;
        std::set<std::string> _malformedKindsLogged;
        // Arrivals an initiator overwrote before this target read them: each is its reader's status or event, and the log
        // says each kind now and then.
        RepeatLog _lostArrivals;

        TargetTransport& setUp();
        // Runs `arrive` on the next arrival; a malformed one is skipped (and the next one tried, within `timeout`).
        template <typename Arrival>
        std::optional<Arrival> nextWellFormed(std::chrono::milliseconds timeout, std::function<Arrival(std::uint32_t)> const& arrive);
        void skipMalformed(mxl::Error const& error);
        void noteLost(mxl::Error const& error);
    };
}
