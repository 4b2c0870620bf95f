#include "fabrics/backends/ucx/UcxPeer.hpp"

#include "common/Status.hpp"
#include "fabrics/ticket/TicketAddressFormat.hpp"

namespace mxl::fabrics::ucx
{
    namespace
    {
        std::vector<std::uint8_t> workerAddressOf(std::uint64_t targetId, mxlFabricsBackendBlob address, std::uint32_t format)
        {
            auto const expected = static_cast<std::uint32_t>(TicketAddressFormat::UcxWorkerAddress);
            if (format != expected)
            {
                fail(MXL_ERR_INVALID_ARG,
                     "ucx initiator: target {} has address format {}; the ucx backend reaches only UCX worker addresses ({})", targetId,
                     format, expected);
            }
            if (address.size == 0)
            {
                fail(MXL_ERR_INVALID_ARG, "ucx initiator: target {} has an empty worker address", targetId);
            }
            return {address.bytes, address.bytes + address.size};
        }
    }

    UcxPeer::UcxPeer(UcxInitiator& owner, std::uint64_t id, mxlFabricsBackendBlob address, std::uint32_t addressFormat,
                     mxlFabricsBackendRemoteRegion const* remote, std::uint32_t regionCount)
        : initiator{owner}
        , targetId{id}
        , workerAddress{workerAddressOf(id, address, addressFormat)}
    {
        regions.reserve(regionCount);
        for (std::uint32_t index = 0; index < regionCount; ++index)
        {
            auto const& region = remote[index];
            if (region.key.size == 0)
            {
                fail(MXL_ERR_INVALID_ARG, "ucx initiator: region {} of target {} has no packed rkey", index, targetId);
            }
            regions.push_back({region.address, region.length, {region.key.bytes, region.key.bytes + region.key.size}});
        }
    }
}
