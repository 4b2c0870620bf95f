#include "fabrics/backends/ofi/EventQueue.hpp"

#include "fabrics/backends/ofi/FabricError.hpp"
#include "fabrics/backends/ofi/QueueError.hpp"
#include "fabrics/backends/ofi/WaitDescriptor.hpp"

#include <rdma/fi_errno.h>

namespace mxl::fabrics
{
    EventQueue::EventQueue(Fabric const& fabric)
    {
        fid_eq* queue = nullptr;
        auto const open = [&](fi_wait_obj waitObject)
        {
            fi_eq_attr attr{};
            attr.size = 64;
            attr.wait_obj = waitObject;
            return fi_eq_open(fabric.get(), &attr, &queue, nullptr);
        };
        bool withDescriptor = false;
        check(openWithDescriptor(open, FI_WAIT_UNSPEC, withDescriptor), "fi_eq_open", "connection events");
        _queue = Fid<fid_eq>{queue};
        _descriptor = withDescriptor ? waitDescriptorOf(queue->fid) : -1;
    }

    namespace
    {
        // Room for a CM entry plus the private data of a connection request or reply.
        struct alignas(fi_eq_cm_entry) EntryBuffer
        {
            std::array<std::uint8_t, sizeof(fi_eq_cm_entry) + 256> bytes;

            [[nodiscard]] fi_eq_cm_entry const& entry() const noexcept
            {
                return *reinterpret_cast<fi_eq_cm_entry const*>(bytes.data());
            }
        };
    }

    std::optional<Event> EventQueue::read()
    {
        EntryBuffer buffer{};
        std::uint32_t type = 0;
        auto const code = fi_eq_read(_queue.get(), &type, &buffer, sizeof(buffer), 0);
        return decode(code, type, buffer.entry());
    }

    std::optional<Event> EventQueue::readBlocking(std::chrono::milliseconds timeout)
    {
        EntryBuffer buffer{};
        std::uint32_t type = 0;
        auto const code = fi_eq_sread(_queue.get(), &type, &buffer, sizeof(buffer), static_cast<int>(timeout.count()), 0);
        return decode(code == -FI_ETIMEDOUT ? -FI_EAGAIN : code, type, buffer.entry());
    }

    std::optional<Event> EventQueue::decode(long code, std::uint32_t type, fi_eq_cm_entry const& entry)
    {
        if (code == -FI_EAGAIN)
        {
            return std::nullopt;
        }
        if (code == -FI_EAVAIL)
        {
            return readError();
        }
        check(code, "fi_eq_read", "connection events");

        Event event;
        event.type = type;
        event.source = entry.fid;
        if (type == FI_CONNREQ)
        {
            event.request = Info::adopt(entry.info);
            // fi_eq_read returns the bytes it filled: the entry, then the request's data.
            if (auto const bytes = static_cast<std::size_t>(code); bytes > sizeof(fi_eq_cm_entry))
            {
                event.privateData.assign(entry.data, entry.data + (bytes - sizeof(fi_eq_cm_entry)));
            }
        }
        return event;
    }

    std::optional<Event> EventQueue::readError()
    {
        return readQueueError<Event>(_queue.get(), fi_eq_readerr, fi_eq_strerror, "fi_eq_readerr", "connection events",
                                     [](fi_eq_err_entry const& entry)
                                     {
                                         Event event;
                                         event.source = entry.fid;
                                         return event;
                                     });
    }
}
