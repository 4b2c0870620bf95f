// A target and an initiator of the UCX backend in one process, each on its own domain, joined by a peer and a
// connection: what the core would open for one ticket, driven through the table alone.
#pragma once

#include "UcxInitiator.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace mxl::test::ucx
{
    // A target on a domain of its own with one region of each size, and the immediates it handed out.
    class InProcessTarget
    {
    public:
        InProcessTarget(mxlFabricsBackend const& backendTable, mxlFabricsProvider provider, std::vector<std::size_t> const& regionBytes);
        ~InProcessTarget();

        InProcessTarget(InProcessTarget const&) = delete;
        InProcessTarget& operator=(InProcessTarget const&) = delete;

        // Its ticket, valid as long as the target.
        [[nodiscard]] TargetTicket ticket() const;
        // Every arrival the target has, into `arrivals`.
        void takeArrivals();
        void closeTarget();

        [[nodiscard]] mxlFabricsBackendTarget target() const noexcept
        {
            return _target;
        }

        std::vector<std::vector<std::uint8_t>> regions;
        std::vector<std::uint32_t> arrivals;
        // The domain info flags of the target's domain.
        std::uint32_t targetDomainFlags = 0;

    private:
        mxlFabricsBackend const& _table;
        mxlFabricsBackendDomain _targetDomain = nullptr;
        mxlFabricsBackendTarget _target = nullptr;
    };

    class Pair : public InProcessTarget, public Initiator
    {
    public:
        Pair(mxlFabricsBackend const& backendTable, mxlFabricsProvider provider, std::vector<std::size_t> const& regionBytes,
             std::vector<std::uint8_t> sourceBytes, std::size_t depth = 0);

        using Initiator::table;

        // One pass: every arrival the target has, then every completion the initiator has.
        void pump();
        // Pumps until `done` holds or 30 s passed; says whether it held.
        template <typename Done>
        bool pumpUntil(Done&& done)
        {
            return passUntil([this] { pump(); }, done);
        }

        // The one-byte write without immediate by which the core confirms a connectionless path.
        void probe();

    private:
        std::uint64_t _probes = 0;
    };
}
