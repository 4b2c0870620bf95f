#include "Provider.hpp"

#include <array>
#include <cstring>

namespace mxl::fabrics
{
    namespace
    {
        constexpr std::array<ProviderTraits, 4> providers{{
            {MXL_FABRICS_PROVIDER_TCP,
             "tcp",
             FI_EP_MSG,
             FI_PROTO_SOCK_TCP,
             {FI_SOCKADDR_IN, FI_SOCKADDR_IN6},
             true,
             "is the address an IPv4 or IPv6 address of this host?"},
            {MXL_FABRICS_PROVIDER_VERBS,
             "verbs",
             FI_EP_MSG,
             FI_PROTO_RDMA_CM_IB_RC,
             {FI_SOCKADDR_IN, FI_SOCKADDR_IN6},
             true,
             "no verbs interface on this host (needs an RDMA NIC with rdma-core, /dev/infiniband and the address of an "
             "RDMA-capable netdev)"},
            {MXL_FABRICS_PROVIDER_EFA,
             "efa",
             FI_EP_RDM,
             FI_PROTO_EFA,
             {FI_ADDR_EFA, FI_ADDR_EFA},
             false,
             "no efa interface on this host (needs an AWS Elastic Fabric Adapter)"},
            {MXL_FABRICS_PROVIDER_SHM,
             "shm",
             FI_EP_RDM,
             FI_PROTO_SHM,
             {FI_ADDR_STR, FI_ADDR_STR},
             false,
             "the shm provider needs a writable /dev/shm"},
        }};
    }

    ProviderTraits const* findProvider(mxlFabricsProvider provider) noexcept
    {
        for (auto const& traits : providers)
        {
            if (traits.provider == provider)
            {
                return &traits;
            }
        }
        return nullptr;
    }

    ProviderTraits const* findProvider(std::string_view libfabricName) noexcept
    {
        for (auto const& traits : providers)
        {
            if (traits.name == libfabricName)
            {
                return &traits;
            }
        }
        return nullptr;
    }

    std::optional<std::string_view> providerName(mxlFabricsProvider provider) noexcept
    {
        if (provider == MXL_FABRICS_PROVIDER_ANY)
        {
            return "any";
        }
        auto const* traits = findProvider(provider);
        return traits != nullptr ? std::optional{traits->name} : std::nullopt;
    }

    std::optional<mxlFabricsProvider> providerFromName(std::string_view name) noexcept
    {
        if (name == "any")
        {
            return MXL_FABRICS_PROVIDER_ANY;
        }
        auto const* traits = findProvider(name);
        return traits != nullptr ? std::optional{traits->provider} : std::nullopt;
    }

    bool isUsable(ProviderTraits const& traits, fi_info const& info) noexcept
    {
        if (info.fabric_attr == nullptr || info.fabric_attr->prov_name == nullptr || traits.name != info.fabric_attr->prov_name)
        {
            return false;
        }
        if (info.ep_attr == nullptr || info.ep_attr->type != traits.endpointType || info.ep_attr->protocol != traits.protocol)
        {
            return false;
        }
        if ((info.caps & FI_HMEM) != 0)
        {
            return false;
        }
        return info.addr_format == traits.addressFormats[0] || info.addr_format == traits.addressFormats[1];
    }
}
