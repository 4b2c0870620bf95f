#include "fabrics/backends/ofi/Endpoint.hpp"

#include "fabrics/backends/ofi/EndpointName.hpp"
#include "fabrics/backends/ofi/FabricError.hpp"
#include "fabrics/backends/ofi/OfiMemory.hpp"

#include <rdma/fi_cm.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include <sys/uio.h>

#include <optional>

#include <boost/container/small_vector.hpp>

namespace mxl::fabrics
{
    namespace
    {
        // A write's local side: its segments as an iovec list with their registration descriptors, after `header` (an
        // unregistered prefix: msg interfaces are chosen without FI_MR_LOCAL, InterfaceSelection.cpp) when there is one.
        // Inline for the segments a write holds inline (RemoteWrite.hpp) and a header: posting allocates nothing.
        struct LocalSide
        {
            boost::container::small_vector<iovec, 5> iov;
            boost::container::small_vector<void*, 5> descriptors;
        };

        LocalSide localSide(RemoteWrite const& write, std::optional<iovec> header = std::nullopt)
        {
            LocalSide local;
            if (header)
            {
                local.iov.push_back(*header);
                local.descriptors.push_back(nullptr);
            }
            for (auto const& segment : write.segments)
            {
                local.iov.push_back({const_cast<void*>(segment.base), segment.length});
                local.descriptors.push_back(ofiMemoryOf(*segment.memory).descriptor());
            }
            return local;
        }

        // Delivery complete: the local completion means the bytes are visible at the target, so the outstanding-write
        // count the initiator reports really is "arrived". Payload ahead of an ordered commit only needs to know when the
        // source was read (docs/fabrics.md, "Read safety"). The same for a write and for its msg transport's send.
        std::uint64_t completionFlags(RemoteWrite const& write) noexcept
        {
            return (write.completesWhenRead ? FI_INJECT_COMPLETE : FI_DELIVERY_COMPLETE) | (write.immediate ? FI_REMOTE_CQ_DATA : 0);
        }
    }

    Endpoint::Endpoint(Domain const& domain, fi_info* info, void* context)
    {
        fid_ep* ep = nullptr;
        check(fi_endpoint(domain.get(), info, &ep, context), "fi_endpoint", "endpoint");
        _ep = Fid<fid_ep>{ep};
    }

    void Endpoint::bind(CompletionQueue const& queue)
    {
        check(fi_ep_bind(_ep.get(), &queue.get()->fid, FI_TRANSMIT | FI_RECV), "fi_ep_bind", "completion queue");
    }

    void Endpoint::bind(EventQueue const& events)
    {
        check(fi_ep_bind(_ep.get(), &events.get()->fid, 0), "fi_ep_bind", "event queue");
    }

    void Endpoint::bind(AddressVector const& av)
    {
        check(fi_ep_bind(_ep.get(), &av.get()->fid, 0), "fi_ep_bind", "address vector");
    }

    void Endpoint::enable()
    {
        check(fi_enable(_ep.get()), "fi_enable", "endpoint");
    }

    void Endpoint::connect(std::vector<std::uint8_t> const& address, std::span<std::uint8_t const> requestData)
    {
        check(fi_connect(_ep.get(), address.data(), requestData.empty() ? nullptr : requestData.data(), requestData.size()), "fi_connect",
              "target");
    }

    void Endpoint::accept()
    {
        std::uint8_t const acceptData = 0;
        check(fi_accept(_ep.get(), &acceptData, sizeof(acceptData)), "fi_accept", "initiator");
    }

    void Endpoint::shutdown() noexcept
    {
        static_cast<void>(fi_shutdown(_ep.get(), 0));
    }

    std::vector<std::uint8_t> Endpoint::name() const
    {
        return endpointName(_ep.fid(), "endpoint");
    }

    bool Endpoint::write(RemoteWrite const& write, std::vector<RemoteRegion> const& regions, fi_addr_t destination, void* context)
    {
        auto local = localSide(write);
        auto const& region = regions[write.remoteRegion];
        auto const length = write.length();
        auto const remoteAddress = region.addr + write.remoteOffset;
        fi_rma_iov remote{remoteAddress, length, region.rkey};
        fi_msg_rma message{};
        message.msg_iov = local.iov.data();
        message.desc = local.descriptors.data();
        message.iov_count = local.iov.size();
        message.addr = destination;
        message.rma_iov = &remote;
        message.rma_iov_count = 1;
        message.context = context;
        message.data = write.immediate.value_or(0);
        return posted(fi_writemsg(_ep.get(), &message, completionFlags(write)), "fi_writemsg",
                      [&] { return fmt::format("{} bytes to remote address {:#x}", length, remoteAddress); });
    }

    bool Endpoint::send(RemoteWrite const& write, MessagePlacement const& header, fi_addr_t destination, void* context)
    {
        // A target's receive buffers are not registered either (msg interfaces have no FI_MR_LOCAL).
        auto local = localSide(write, iovec{const_cast<MessagePlacement*>(&header), sizeof(header)});
        fi_msg message{};
        message.msg_iov = local.iov.data();
        message.desc = local.descriptors.data();
        message.iov_count = local.iov.size();
        message.addr = destination;
        message.context = context;
        message.data = write.immediate.value_or(0);
        return posted(fi_sendmsg(_ep.get(), &message, completionFlags(write)), "fi_sendmsg",
                      [&] { return fmt::format("{} bytes for region {} offset {}", header.length, header.region, header.offset); });
    }

    bool Endpoint::postReceive(std::span<std::uint8_t> buffer, void* descriptor, void* context)
    {
        return posted(fi_recv(_ep.get(), buffer.data(), buffer.size(), descriptor, FI_ADDR_UNSPEC, context), "fi_recv",
                      [&] { return fmt::format("msg transport receive of {} bytes", buffer.size()); });
    }

    bool Endpoint::postReceive(void* context)
    {
        return posted(fi_recv(_ep.get(), nullptr, 0, nullptr, FI_ADDR_UNSPEC, context), "fi_recv",
                      [] { return std::string_view{"remote CQ data receive"}; });
    }
}
