#include "fabrics/backends/ofi/OfiPeer.hpp"

#include "common/Status.hpp"
#include "fabrics/backends/ofi/RcConnection.hpp"
#include "fabrics/backends/ofi/RdmConnection.hpp"
#include "fabrics/backends/ofi/ShmRegion.hpp"

namespace mxl::fabrics
{
    OfiPeer::OfiPeer(OfiDomain const& opened, CompletionQueue const& completions, EventQueue const* events, SentHeaders* sent,
                     TargetInfo const& ticket)
        : _opened{opened}
        , _completions{completions}
        , _events{events}
        , _sent{sent}
        , _address{ticket.fabricAddress}
        , _addressFormat{ticket.addressFormat}
        , _regions{ticket.regions}
        , _shmRegion{shmRegionOf(ticket)}
    {
        auto const& traits = opened.traits;
        if (ticket.addressFormat != traits.addressFormats[0] && ticket.addressFormat != traits.addressFormats[1])
        {
            fail(MXL_ERR_INVALID_ARG, "target {} has address format {}, which {} cannot reach", ticket.id, ticket.addressFormat,
                 traits.name());
        }
    }

    std::unique_ptr<TransportConnection> OfiPeer::connect(std::uint64_t token, std::span<std::uint8_t const> requestData)
    {
        if (_events != nullptr)
        {
            return std::make_unique<RcConnection>(_opened, _completions, *_events, *this, token, requestData);
        }
        if (!requestData.empty())
        {
            fail(MXL_ERR_UNSUPPORTED_OPERATION, "a {} initiator sends no connection requests to carry a proof of the ticket key",
                 _opened.traits.name());
        }
        if (auto const ended = this->ended())
        {
            fail(MXL_ERR_NOT_READY, "{}", *ended);
        }
        return std::make_unique<RdmConnection>(_opened, _completions, *this);
    }

    std::optional<std::string> OfiPeer::ended()
    {
        if (!_shmRegion)
        {
            return std::nullopt;
        }
        auto const state = probeShmRegion(*_shmRegion);
        if (state == ShmRegionState::Gone)
        {
            return fmt::format("the target's shm region {} does not exist: the target process has ended", _shmRegion->string());
        }
        if (state == ShmRegionState::Unheld && _heldRegion)
        {
            return fmt::format("the target's shm region {} is no longer held: the target process has ended", _shmRegion->string());
        }
        _heldRegion = _heldRegion || state == ShmRegionState::Held;
        return std::nullopt;
    }
}
