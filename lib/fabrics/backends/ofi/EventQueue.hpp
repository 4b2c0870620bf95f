// fid_eq: connection-management events (requests, established, shutdown) of passive and MSG endpoints.
#pragma once

#include "fabrics/backends/ofi/Fabric.hpp"

#include <rdma/fi_eq.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mxl::fabrics
{
    struct Event
    {
        std::uint32_t type = 0;
        fid_t source = nullptr;
        // FI_CONNREQ: the request's description, owned (needed to create the accepting endpoint).
        Info request = Info::adopt(nullptr);
        // FI_CONNREQ: the private data the initiator sent with it (with the provider's padding, if any).
        std::vector<std::uint8_t> privateData;
        // Error events: the positive errno and the provider's explanation.
        int error = 0;
        std::string errorText;
    };

    class EventQueue
    {
    public:
        explicit EventQueue(Fabric const& fabric);

        [[nodiscard]] fid_eq* get() const noexcept
        {
            return _queue.get();
        }

        // Polls readable when events may be ready, once fi_trywait allowed the wait; -1 where the queue has none.
        [[nodiscard]] int descriptor() const noexcept
        {
            return _descriptor;
        }

        // One event, or nothing when the queue is empty; an error entry is returned as an event with `error` set.
        std::optional<Event> read();
        // Sleeps up to `timeout` for one event.
        std::optional<Event> readBlocking(std::chrono::milliseconds timeout);

    private:
        Fid<fid_eq> _queue;
        int _descriptor = -1;

        std::optional<Event> decode(long code, std::uint32_t type, fi_eq_cm_entry const& entry);
        std::optional<Event> readError();
    };
}
