// How a device flow's payloads cross the transport, as the setup option "devicePayloads" asks (docs/device-flows.md,
// "Across the fabric"): registered directly with the transport where the interface registers device memory (FI_HMEM),
// or staged through pinned host slots (protocol/DeviceStaging.hpp). Chosen at setup, logged, never silent.
#pragma once

#include <mxl/fabrics.h>

#include "common/FlowMemory.hpp"
#include "fabrics/core/Backend.hpp"

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace mxl::fabrics
{
    enum class DevicePayloads
    {
        Auto,   // direct where the interface registers the flow's device memory, otherwise staged, with the reason logged
        Direct, // direct, or setup fails with MXL_ERR_UNSUPPORTED_OPERATION naming the provider and why
        Staged, // through pinned host memory, whatever the interface can do
    };

    // "auto", "direct", "staged".
    [[nodiscard]] std::optional<DevicePayloads> devicePayloadsFromName(std::string_view name) noexcept;

    // The interface a target or an initiator of a flow is opened over.
    struct OpenedInterface
    {
        std::unique_ptr<TransportDomain> domain;
        // Direct only: the flow's whole device payload ring registered with `domain` (which outlives it), as the target's
        // payload regions or the initiator's payload source.
        std::unique_ptr<TransportMemory> deviceRing;
        // A device flow staged: why, for the setup log line ("asked", or what the interface lacks).
        std::string stagedBecause;
    };

    // A host or sample flow: the domain openDomain gives, whatever `asked`. A device flow: a domain of openDeviceDomain
    // with the payload ring registered (`access`: RemoteWrite for a target, LocalSource for an initiator), or as `asked`
    // permits the host domain it stages through.
    [[nodiscard]] OpenedInterface openFlowDomain(Backend& backend, mxlFabricsInterfaceConfig const& config, Role role, Transport transport,
                                                 DevicePayloads asked, FlowMemory const& memory);
}
