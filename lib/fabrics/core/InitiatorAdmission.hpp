// Which initiators a target lets connect (TargetSetup's "allowInitiators" and "admissionKeyFile"): the address of each
// connection request is held against the allowed prefixes, and its private data must prove the ticket key, before the
// transport makes an endpoint for it, so a refused initiator never reaches the target's registered memory. Refusals are
// counted, and logged once per address and reason (four reasons an address at most) so that a peer retrying every few
// seconds cannot flood the log.
#pragma once

#include <mxl/fabrics_state.h>

#include "common/AddressPrefix.hpp"
#include "fabrics/core/TargetTransport.hpp"
#include "signing/SigningKeys.hpp"

#include <atomic>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace mxl::fabrics
{
    class InitiatorAdmission
    {
    public:
        // The rules of the target's current setup (absent: not checked), and the ticket's id and epoch a proof names;
        // counters and the addresses already logged carry over.
        void allow(std::optional<std::vector<AddressPrefix>> prefixes, std::optional<signing::SigningKeys> keys, std::uint64_t targetId,
                   std::uint64_t epoch);

        // On the thread that reads the target's arrivals.
        [[nodiscard]] bool admit(ConnectionRequest const& request);
        // From any thread.
        [[nodiscard]] mxlFabricsAdmissionCounters counters() const noexcept;

    private:
        std::optional<std::vector<AddressPrefix>> _allowed;
        std::optional<signing::SigningKeys> _keys;
        std::uint64_t _targetId = 0;
        std::uint64_t _epoch = 0;
        std::atomic<std::uint64_t> _admitted{0};
        std::atomic<std::uint64_t> _refused{0};
        std::atomic<std::uint64_t> _refusedAddressCount{0};
        std::set<std::string> _refusedAddresses;
        std::set<std::pair<std::string, std::string>> _loggedRefusals;
        std::map<std::string, std::size_t> _reasonsLogged;

        [[nodiscard]] std::string allowedText() const;
        // Empty when `request` passes both rules; else why not.
        [[nodiscard]] std::string problem(ConnectionRequest const& request, std::optional<IpAddress> const& address) const;
    };
}
