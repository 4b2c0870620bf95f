#include "fabrics/backends/ofi/OfiDomain.hpp"

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
        : traits{*selected.traits}
        , info{std::move(selected.info)}
        , fabric{info}
        , domain{fabric, info}
        , reported{reportOf(traits, *info.get(), selected.orderedWrites)}
    {
    }

    std::unique_ptr<OfiDomain> openOfiDomain(mxlFabricsInterfaceConfig const& config, Role role)
    {
        return std::make_unique<OfiDomain>(selectInterface(config, role));
    }
}
