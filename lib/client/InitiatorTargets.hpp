// An initiator and the targets added to it, as a program sees them: setting the initiator up on an interface and its
// source flow, each target's connection state (with the library's reason text) and counters, and leaving them.
// Header-only so that programs without fabrics never link libmxl-fabrics.
#pragma once

#include "FabricsInterfaces.hpp"

#include <mxl/fabrics.h>
#include <mxl/fabrics_state.h>

#include <fmt/format.h>

#include <chrono>
#include <optional>
#include <span>
#include <string>

namespace mxl::client
{
    // mxlFabricsInitiatorSetup on `interface`, reading `reader`; `options` is the setup options JSON ("" for none).
    inline mxlStatus setUpInitiator(mxlFabricsInitiator initiator, FabricsInterface const& interface, mxlFlowReader reader,
                                    std::string const& options)
    {
        auto config = endpointConfig<mxlFabricsInitiatorConfig>(interface);
        config.reader = reader;
        return ::mxlFabricsInitiatorSetup(initiator, &config, setupOptionsOrNull(options));
    }

    struct TargetState
    {
        mxlFabricsTargetState state = MXL_FABRICS_TARGET_NOT_CONNECTED;
        // Why the library last disconnected it; empty when it never was.
        std::string reason;
    };

    // nullopt when the library no longer knows the target.
    inline std::optional<TargetState> targetState(mxlFabricsInitiator initiator, mxlFabricsTargetInfo target)
    {
        TargetState result;
        std::size_t reasonSize = 0;
        if (::mxlFabricsInitiatorGetTargetState(initiator, target, &result.state, nullptr, &reasonSize) != MXL_STATUS_OK)
        {
            return std::nullopt;
        }
        if (reasonSize > 1)
        {
            result.reason.resize(reasonSize);
            ::mxlFabricsInitiatorGetTargetState(initiator, target, &result.state, result.reason.data(), &reasonSize);
            result.reason.resize(reasonSize > 0 ? reasonSize - 1 : 0);
        }
        return result;
    }

    // All zero when the library no longer knows the target.
    inline mxlFabricsTargetCounters targetCounters(mxlFabricsInitiator initiator, mxlFabricsTargetInfo target)
    {
        mxlFabricsTargetCounters counters{};
        ::mxlFabricsInitiatorGetTargetCounters(initiator, target, &counters);
        return counters;
    }

    inline std::string targetStateName(mxlFabricsTargetState state)
    {
        switch (state)
        {
        case MXL_FABRICS_TARGET_NOT_CONNECTED:
            return "not connected";
        case MXL_FABRICS_TARGET_CONNECTING:
            return "connecting";
        case MXL_FABRICS_TARGET_CONNECTED:
            return "connected";
        case MXL_FABRICS_TARGET_DISCONNECTED:
            return "disconnected";
        }
        return fmt::format("state {}", static_cast<int>(state));
    }

    // Removes `targets` from the initiator and drives progress until the library says every connection is gone (OK for
    // connectionless providers, INTERRUPTED for connections), so that each target sees the initiator leave at once.
    // False when that took longer than `timeout`, or progress failed.
    inline bool leaveTargets(mxlFabricsInitiator initiator, std::span<mxlFabricsTargetInfo const> targets,
                             std::chrono::milliseconds timeout)
    {
        for (auto const target : targets)
        {
            // NOT_FOUND: the library already dropped a target that went away.
            ::mxlFabricsInitiatorRemoveTarget(initiator, target);
        }
        constexpr std::uint16_t progressSliceMs = 100;
        auto const deadline = std::chrono::steady_clock::now() + timeout;
        while (std::chrono::steady_clock::now() < deadline)
        {
            auto const status = ::mxlFabricsInitiatorMakeProgressBlocking(initiator, progressSliceMs);
            if (status == MXL_STATUS_OK || status == MXL_ERR_INTERRUPTED)
            {
                return true;
            }
            if (status != MXL_ERR_NOT_READY)
            {
                return false;
            }
        }
        return false;
    }
}
