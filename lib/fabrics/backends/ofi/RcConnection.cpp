#include "fabrics/backends/ofi/RcConnection.hpp"

#include "common/Status.hpp"
#include "fabrics/backends/ofi/OfiContext.hpp"
#include "fabrics/backends/ofi/PostWrite.hpp"

#include <cstdlib>
#include <cstring>

namespace mxl::fabrics
{
    namespace
    {
        // The initiator's interface description aimed at one target: its address as the destination, and no bound
        // source address when the families differ (an IPv4 initiator interface cannot reach an IPv6 target).
        Info aimedAt(Info const& interface, OfiPeer const& peer)
        {
            auto info = Info::duplicate(interface.get());
            std::free(info->dest_addr);
            info->dest_addr = std::malloc(peer.address().size());
            if (info->dest_addr == nullptr)
            {
                fail(MXL_ERR_UNKNOWN, "out of memory");
            }
            std::memcpy(info->dest_addr, peer.address().data(), peer.address().size());
            info->dest_addrlen = peer.address().size();
            if (info->addr_format != peer.addressFormat())
            {
                std::free(info->src_addr);
                info->src_addr = nullptr;
                info->src_addrlen = 0;
                info->addr_format = peer.addressFormat();
            }
            return info;
        }
    }

    RcConnection::RcConnection(OfiDomain const& opened, CompletionQueue const& completions, EventQueue const& events, OfiPeer const& peer,
                               std::uint64_t token, std::span<std::uint8_t const> requestData)
        : _endpoint{opened.domain, aimedAt(opened.info, peer).get(), contextOf(token)}
        , _peer{peer}
    {
        _endpoint.bind(events);
        _endpoint.bind(completions);
        _endpoint.enable();
        _endpoint.connect(peer.address(), requestData);
    }

    bool RcConnection::write(RemoteWrite const& write, std::uint64_t context)
    {
        return postWrite(_endpoint, write, _peer.regions(), _peer.sentHeaders(), FI_ADDR_UNSPEC, context);
    }

    std::optional<std::string> RcConnection::check()
    {
        return std::nullopt;
    }

    void RcConnection::disconnect() noexcept
    {
        _endpoint.shutdown();
    }
}
