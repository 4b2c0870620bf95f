#include "fabrics/backends/ofi/OfiDomain.hpp"

#include "fabrics/backends/ofi/OfiMemory.hpp"

namespace mxl::fabrics
{
    namespace
    {
        DomainInfo reportOf(OfiProvider const& traits, fi_info const& info, bool orderedWrites)
        {
            DomainInfo reported;
            reported.connectionless = traits.endpointType == FI_EP_RDM;
            reported.orderedWrites = orderedWrites;
            reported.canWait = traits.blockingCompletions;
            reported.maxMessageBytes = info.ep_attr->max_msg_size;
            reported.maxGatherSegments = info.tx_attr->iov_limit;
            return reported;
        }
    }

    OfiDomain::OfiDomain(SelectedInterface selected)
        : TransportDomain{reportOf(*selected.traits, *selected.info.get(), selected.orderedWrites)}
        , traits{*selected.traits}
        , info{std::move(selected.info)}
        , fabric{info}
        , domain{fabric, info}
    {
    }

    std::unique_ptr<TransportMemory> OfiDomain::registerMemory(void const* base, std::size_t length, MemoryAccess access) const
    {
        return std::make_unique<OfiMemory>(domain, base, length, access);
    }

    std::unique_ptr<OfiDomain> openOfiDomain(mxlFabricsInterfaceConfig const& config, Role role)
    {
        return std::make_unique<OfiDomain>(selectInterface(config, role));
    }
}
