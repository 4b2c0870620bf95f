// Which initiators a target lets connect (TargetSetup's "allowInitiators"): the address of each connection request is
// held against the allowed prefixes before the transport makes an endpoint for it, so a refused initiator never reaches
// the target's registered memory. Refusals are counted, and logged once per address so that a peer retrying every
// few seconds cannot flood the log.
#pragma once

#include "common/AddressPrefix.hpp"
#include "fabrics/core/TargetTransport.hpp"

#include <atomic>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace mxl::fabrics
{
    struct AdmissionCounters
    {
        std::uint64_t admitted = 0;
        std::uint64_t refused = 0;
        // Distinct addresses refused, each logged once (up to 1024 of them).
        std::uint64_t refusedAddresses = 0;
    };

    class InitiatorAdmission
    {
    public:
        // The prefixes of the target's current setup; counters and the addresses already logged carry over.
        void allow(std::vector<AddressPrefix> prefixes, std::uint64_t targetId);

        // On the thread that reads the target's arrivals.
        [[nodiscard]] bool admit(ConnectionRequest const& request);
        // From any thread.
        [[nodiscard]] AdmissionCounters counters() const noexcept;

    private:
        std::vector<AddressPrefix> _allowed;
        std::uint64_t _targetId = 0;
        std::atomic<std::uint64_t> _admitted{0};
        std::atomic<std::uint64_t> _refused{0};
        std::atomic<std::uint64_t> _refusedAddressCount{0};
        std::set<std::string> _refusedAddresses;

        [[nodiscard]] std::string allowedText() const;
    };
}
