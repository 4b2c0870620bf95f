// A target as an initiator over libfabric knows it: the address and regions of its ticket, and for shm whether its
// region file was ever seen held.
#pragma once

#include "fabrics/backends/ofi/CompletionQueue.hpp"
#include "fabrics/backends/ofi/EventQueue.hpp"
#include "fabrics/backends/ofi/OfiDomain.hpp"
#include "fabrics/backends/ofi/SentHeaders.hpp"
#include "fabrics/core/TransportPeer.hpp"
#include "fabrics/ticket/TargetInfo.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mxl::fabrics
{
    class OfiPeer final : public TransportPeer
    {
    public:
        // `events`: the initiator's event queue, for connection-oriented providers only. `sent`: the initiator's headers
        // of sends in flight, for the msg transport only. INVALID_ARG when the ticket's address format is not one the
        // provider reaches.
        OfiPeer(OfiDomain const& opened, CompletionQueue const& completions, EventQueue const* events, SentHeaders* sent,
                TargetInfo const& ticket);

        [[nodiscard]] std::unique_ptr<TransportConnection> connect(std::uint64_t token, std::span<std::uint8_t const> requestData) override;

        [[nodiscard]] std::vector<std::uint8_t> const& address() const noexcept
        {
            return _address;
        }

        [[nodiscard]] std::uint32_t addressFormat() const noexcept
        {
            return _addressFormat;
        }

        [[nodiscard]] std::vector<RemoteRegion> const& regions() const noexcept
        {
            return _regions;
        }

        // Where connections to this peer keep their send headers; NULL when writes travel by RMA.
        [[nodiscard]] SentHeaders* sentHeaders() const noexcept
        {
            return _sent;
        }

        // Why an shm target has ended (its region file is gone, or no longer held: ShmRegion.hpp); nullopt while it may
        // live, and for other providers.
        [[nodiscard]] std::optional<std::string> ended();

    private:
        OfiDomain const& _opened;
        CompletionQueue const& _completions;
        EventQueue const* _events;
        SentHeaders* _sent;
        std::vector<std::uint8_t> _address;
        std::uint32_t _addressFormat;
        std::vector<RemoteRegion> _regions;
        std::optional<std::filesystem::path> _shmRegion;
        // The region file was seen held once: a target of this library (SDK targets hold nothing), so an unheld file
        // means it has ended.
        bool _heldRegion = false;
    };
}
