#include "fabrics/core/InitiatorAdmission.hpp"

#include "common/Log.hpp"
#include "fabrics/protocol/IncarnationMark.hpp"
#include "signing/AdmissionProof.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <chrono>

namespace mxl::fabrics
{
    namespace
    {
        // Past this many distinct refused addresses (a scan of a whole subnet), or logged pairs of address and reason, further
        // ones are neither logged nor told apart: their requests are still counted.
        constexpr std::size_t loggedAddressLimit = 1024;
        // A reason may quote what the peer sent (a key id, an epoch): a peer that varies it is logged this often at most.
        constexpr std::size_t loggedReasonsPerAddress = 4;
    }

    void InitiatorAdmission::allow(std::optional<std::vector<AddressPrefix>> prefixes, std::optional<signing::SigningKeys> keys,
                                   std::uint64_t targetId, std::uint64_t epoch)
    {
        _allowed = std::move(prefixes);
        _keys = std::move(keys);
        _targetId = targetId;
        _epoch = epoch;
    }

    bool InitiatorAdmission::admit(ConnectionRequest const& request)
    {
        auto const address = IpAddress::of(reinterpret_cast<sockaddr const*>(request.peerAddress.data()), request.peerAddress.size());
        auto const why = problem(request, address);
        if (why.empty())
        {
            _admitted.fetch_add(1, std::memory_order_relaxed);
            return true;
        }
        _refused.fetch_add(1, std::memory_order_relaxed);
        auto const who = address ? address->text() : std::string{"an initiator whose address the transport did not give"};
        if (_refusedAddresses.size() < loggedAddressLimit && _refusedAddresses.insert(who).second)
        {
            _refusedAddressCount.fetch_add(1, std::memory_order_relaxed);
        }
        // Once per address and reason, for the addresses told apart: a peer retrying cannot flood the log, yet a peer
        // refused first for its address and later for a stale ticket or a wrong key shows each cause.
        if (!_refusedAddresses.contains(who))
        {
            return false;
        }
        if (auto& reasonsLogged = _reasonsLogged[who]; reasonsLogged < loggedReasonsPerAddress && _loggedRefusals.emplace(who, why).second)
        {
            ++reasonsLogged;
            log::warn("fabrics target {}: refused the connection of {}: {}; it reached no memory of this target, and its further requests "
                      "{} are refused without a log line",
                      _targetId, who, why, reasonsLogged < loggedReasonsPerAddress ? "for this reason" : "for any reason");
        }
        return false;
    }

    std::string InitiatorAdmission::problem(ConnectionRequest const& request, std::optional<IpAddress> const& address) const
    {
        if (_allowed && (!address || std::none_of(_allowed->begin(), _allowed->end(),
                                                  [&](AddressPrefix const& prefix) { return prefix.contains(*address); })))
        {
            return fmt::format("not in allowInitiators ({})", allowedText());
        }
        if (_keys)
        {
            return signing::admissionProblem(*_keys, request.privateData, _targetId, _epoch, std::chrono::system_clock::now());
        }
        return incarnationProblem(request.privateData, _targetId, _epoch);
    }

    mxlFabricsAdmissionCounters InitiatorAdmission::counters() const noexcept
    {
        return {_admitted.load(std::memory_order_relaxed), _refused.load(std::memory_order_relaxed),
                _refusedAddressCount.load(std::memory_order_relaxed)};
    }

    std::string InitiatorAdmission::allowedText() const
    {
        std::string text;
        for (auto const& prefix : _allowed.value_or(std::vector<AddressPrefix>{}))
        {
            text += (text.empty() ? "" : ", ") + prefix.text();
        }
        return text;
    }
}
