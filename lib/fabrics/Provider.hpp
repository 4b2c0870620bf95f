// The four providers MXL knows, how they are named and which endpoint type and addresses each one uses.
#pragma once

#include <mxl/fabrics.h>

#include <rdma/fabric.h>

#include <cstdint>
#include <optional>
#include <string_view>

namespace mxl::fabrics
{
    struct ProviderTraits
    {
        mxlFabricsProvider provider;
        // The API string (mxlFabricsProviderToString) and libfabric's prov_name: they are the same words.
        std::string_view name;
        // tcp/verbs connect (FI_EP_MSG: passive endpoint, fi_connect/fi_accept); shm/efa address peers (FI_EP_RDM).
        fi_ep_type endpointType;
        std::uint32_t protocol;
        // The address formats this provider's tickets may carry.
        std::uint32_t addressFormats[2];
        // Only tcp here can sleep in fi_cq_sread and honour its timeout (shm 1.17 spins; efa 1.17 has no wait object).
        bool blockingCompletions;
        // What to tell the user when the provider is not present on this host.
        std::string_view absentHint;
    };

    // NULL for ANY or values outside the enum.
    [[nodiscard]] ProviderTraits const* findProvider(mxlFabricsProvider provider) noexcept;
    [[nodiscard]] ProviderTraits const* findProvider(std::string_view libfabricName) noexcept;

    // The API string of any valid enum value, "any" included.
    [[nodiscard]] std::optional<std::string_view> providerName(mxlFabricsProvider provider) noexcept;
    [[nodiscard]] std::optional<mxlFabricsProvider> providerFromName(std::string_view name) noexcept;

    // Does this fi_info describe an interface we can use for `traits` (type, protocol, address format, no FI_HMEM)?
    [[nodiscard]] bool isUsable(ProviderTraits const& traits, fi_info const& info) noexcept;
}
