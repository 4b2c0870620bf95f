#include "fabrics/backends/ofi/PostWrite.hpp"

#include "fabrics/backends/ofi/OfiContext.hpp"

namespace mxl::fabrics
{
    bool postWrite(Endpoint& endpoint, RemoteWrite const& write, std::vector<RemoteRegion> const& regions, SentHeaders* sent,
                   fi_addr_t destination, std::uint64_t context)
    {
        if (sent == nullptr)
        {
            return endpoint.write(write, regions, destination, contextOf(context));
        }
        auto const& header = sent->hold(
            context, {messagePlacementMagic, write.remoteRegion, write.remoteOffset, write.length(), regions[write.remoteRegion].rkey});
        if (!endpoint.send(write, header, destination, contextOf(context)))
        {
            sent->release(context);
            return false;
        }
        return true;
    }
}
