#include "fabrics/core/InitiatorAdmission.hpp"

#include "common/Log.hpp"

#include <sys/socket.h>

#include <algorithm>

namespace mxl::fabrics
{
    namespace
    {
        // Past this many distinct refused addresses (a scan of a whole subnet) further ones are neither logged nor told apart:
        // their requests are still counted.
        constexpr std::size_t loggedAddressLimit = 1024;
    }

    void InitiatorAdmission::allow(std::vector<AddressPrefix> prefixes, std::uint64_t targetId)
    {
        _allowed = std::move(prefixes);
        _targetId = targetId;
    }

    bool InitiatorAdmission::admit(ConnectionRequest const& request)
    {
        auto const address = IpAddress::of(reinterpret_cast<sockaddr const*>(request.peerAddress.data()), request.peerAddress.size());
        if (address &&
            std::any_of(_allowed.begin(), _allowed.end(), [&](AddressPrefix const& prefix) { return prefix.contains(*address); }))
        {
            _admitted.fetch_add(1, std::memory_order_relaxed);
            return true;
        }
        _refused.fetch_add(1, std::memory_order_relaxed);
        auto const who = address ? address->text() : std::string{"an initiator whose address the transport did not give"};
        if (_refusedAddresses.size() < loggedAddressLimit && _refusedAddresses.insert(who).second)
        {
            _refusedAddressCount.fetch_add(1, std::memory_order_relaxed);
            log::warn("fabrics target {}: refused the connection of {}: not in allowInitiators ({}); it reached no memory of this "
                      "target, and its further requests are refused without a log line",
                      _targetId, who, allowedText());
        }
        return false;
    }

    AdmissionCounters InitiatorAdmission::counters() const noexcept
    {
        return {_admitted.load(std::memory_order_relaxed), _refused.load(std::memory_order_relaxed),
                _refusedAddressCount.load(std::memory_order_relaxed)};
    }

    std::string InitiatorAdmission::allowedText() const
    {
        std::string text;
        for (auto const& prefix : _allowed)
        {
            text += (text.empty() ? "" : ", ") + prefix.text();
        }
        return text;
    }
}
