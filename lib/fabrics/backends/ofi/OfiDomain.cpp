#include "fabrics/backends/ofi/OfiDomain.hpp"

#include "common/Status.hpp"
#include "fabrics/backends/ofi/MessageFormat.hpp"
#include "fabrics/backends/ofi/OfiMemory.hpp"

#include <algorithm>

namespace mxl::fabrics
{
    namespace
    {
        DomainInfo reportOf(OfiProvider const& traits, fi_info const& info, bool orderedWrites, TransportChoice const& transport)
        {
            DomainInfo reported;
            reported.connectionless = traits.endpointType == FI_EP_RDM;
            reported.orderedWrites = orderedWrites;
            reported.canWait = traits.blockingCompletions;
            reported.maxMessageBytes = info.ep_attr->max_msg_size;
            reported.maxGatherSegments = info.tx_attr->iov_limit;
            reported.transport = transport.transport;
            reported.transportReason = transport.reason;
            if (transport.transport == Transport::Msg)
            {
                // A send must fit the target's receive buffers, and its placement header takes one gather segment.
                reported.maxMessageBytes = std::min<std::uint64_t>(reported.maxMessageBytes, messageChunkBytes);
                reported.maxGatherSegments = reported.maxGatherSegments > 1 ? reported.maxGatherSegments - 1 : 1;
            }
            return reported;
        }
    }

    OfiDomain::OfiDomain(SelectedInterface selected, bool forDeviceMemory)
        : TransportDomain{reportOf(*selected.traits, *selected.info.get(), selected.orderedWrites, selected.transport)}
        , deviceMemory{forDeviceMemory}
        , traits{*selected.traits}
        , info{std::move(selected.info)}
        , fabric{openFabric(info)}
        , domain{fabric, info}
    {
    }

    std::unique_ptr<TransportMemory> OfiDomain::registerMemory(void const* base, std::size_t length, MemoryAccess access) const
    {
        return std::make_unique<OfiMemory>(domain, base, length, access, reported.transport);
    }

    std::unique_ptr<TransportMemory> OfiDomain::registerDeviceMemory(void const* base, std::size_t length, MemoryAccess access,
                                                                     int cudaDevice) const
    {
        if (!deviceMemory)
        {
            fail(MXL_ERR_UNSUPPORTED_OPERATION,
                 "registering {} bytes of CUDA device {} memory at {}: the {} domain was not opened for device memory", length, cudaDevice,
                 base, traits.name());
        }
        return std::make_unique<OfiMemory>(domain, base, length, access, reported.transport, cudaDevice);
    }

    std::unique_ptr<OfiDomain> openOfiDomain(mxlFabricsInterfaceConfig const& config, Role role, Transport asked, bool deviceMemory)
    {
        return std::make_unique<OfiDomain>(selectInterface(config, role, asked, deviceMemory), deviceMemory);
    }
}
