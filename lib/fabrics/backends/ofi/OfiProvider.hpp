// How libfabric serves each provider MXL knows: which endpoint type, protocol and addresses it uses, and what it can do.
#pragma once

#include <mxl/fabrics.h>

#include <rdma/fabric.h>

#include <cstdint>
#include <string_view>

namespace mxl::fabrics
{
    struct OfiProvider
    {
        mxlFabricsProvider provider;
        // tcp/verbs connect (FI_EP_MSG: passive endpoint, fi_connect/fi_accept); shm/efa address peers (FI_EP_RDM).
        fi_ep_type endpointType;
        std::uint32_t protocol;
        // The address formats this provider's tickets may carry.
        std::uint32_t addressFormats[2];
        // Only tcp here can sleep in fi_cq_sread and honour its timeout (shm 1.17 spins; efa 1.17 has no wait object).
        bool blockingCompletions;
        // What to tell the user when the provider is not present on this host.
        std::string_view absentHint;

        // The API string (mxlFabricsProviderToString) and libfabric's prov_name: they are the same words.
        [[nodiscard]] std::string_view name() const noexcept;
    };

    // NULL for ANY or values outside the enum.
    [[nodiscard]] OfiProvider const* findOfiProvider(mxlFabricsProvider provider) noexcept;
    [[nodiscard]] OfiProvider const* findOfiProvider(std::string_view libfabricName) noexcept;

    // Does this fi_info describe an interface we can use for `traits` (type, protocol, address format)? libfabric lists
    // a provider that registers device memory twice, with and without FI_HMEM: `withHmem` picks the entry with it (a
    // domain for device memory) or the one without (every other domain).
    [[nodiscard]] bool isUsable(OfiProvider const& traits, fi_info const& info, bool withHmem) noexcept;
}
