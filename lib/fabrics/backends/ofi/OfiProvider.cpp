#include "fabrics/backends/ofi/OfiProvider.hpp"

#include "fabrics/ticket/ProviderNames.hpp"
#include "fabrics/ticket/TicketAddressFormat.hpp"

#include <array>

namespace mxl::fabrics
{
    // Tickets carry libfabric's numbers; the core names them without libfabric's headers.
    static_assert(TicketAddressFormat::Sockaddr == static_cast<TicketAddressFormat>(FI_SOCKADDR));
    static_assert(TicketAddressFormat::SockaddrIn == static_cast<TicketAddressFormat>(FI_SOCKADDR_IN));
    static_assert(TicketAddressFormat::SockaddrIn6 == static_cast<TicketAddressFormat>(FI_SOCKADDR_IN6));
    static_assert(TicketAddressFormat::SockaddrIb == static_cast<TicketAddressFormat>(FI_SOCKADDR_IB));
    static_assert(TicketAddressFormat::Str == static_cast<TicketAddressFormat>(FI_ADDR_STR));
    static_assert(TicketAddressFormat::Efa == static_cast<TicketAddressFormat>(FI_ADDR_EFA));

    namespace
    {
        constexpr std::array<OfiProvider, 4> providers{{
            {MXL_FABRICS_PROVIDER_TCP,
             FI_EP_MSG,
             FI_PROTO_SOCK_TCP,
             {FI_SOCKADDR_IN, FI_SOCKADDR_IN6},
             true,
             "is the address an IPv4 or IPv6 address of this host?"},
            {MXL_FABRICS_PROVIDER_VERBS,
             FI_EP_MSG,
             FI_PROTO_RDMA_CM_IB_RC,
             {FI_SOCKADDR_IN, FI_SOCKADDR_IN6},
             true,
             "no verbs interface on this host (needs an RDMA NIC with rdma-core, /dev/infiniband and the address of an "
             "RDMA-capable netdev)"},
            {MXL_FABRICS_PROVIDER_EFA,
             FI_EP_RDM,
             FI_PROTO_EFA,
             {FI_ADDR_EFA, FI_ADDR_EFA},
             false,
             "no efa interface on this host (needs an AWS Elastic Fabric Adapter)"},
            {MXL_FABRICS_PROVIDER_SHM,
             FI_EP_RDM,
             FI_PROTO_SHM,
             {FI_ADDR_STR, FI_ADDR_STR},
             false,
             "the shm provider needs a writable /dev/shm"},
        }};
    }

    std::string_view OfiProvider::name() const noexcept
    {
        return providerName(provider).value_or("");
    }

    OfiProvider const* findOfiProvider(mxlFabricsProvider provider) noexcept
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

    OfiProvider const* findOfiProvider(std::string_view libfabricName) noexcept
    {
        auto const provider = providerFromName(libfabricName);
        return provider ? findOfiProvider(*provider) : nullptr;
    }

    bool isUsable(OfiProvider const& traits, fi_info const& info, bool withHmem) noexcept
    {
        if (info.fabric_attr == nullptr || info.fabric_attr->prov_name == nullptr || traits.name() != info.fabric_attr->prov_name)
        {
            return false;
        }
        if (info.ep_attr == nullptr || info.ep_attr->type != traits.endpointType || info.ep_attr->protocol != traits.protocol)
        {
            return false;
        }
        if (((info.caps & FI_HMEM) != 0) != withHmem)
        {
            return false;
        }
        return info.addr_format == traits.addressFormats[0] || info.addr_format == traits.addressFormats[1];
    }
}
