#include "UcxPair.hpp"

#include <doctest/doctest.h>

namespace mxl::test::ucx
{
    InProcessTarget::InProcessTarget(mxlFabricsBackend const& backendTable, mxlFabricsProvider provider,
                                     std::vector<std::size_t> const& regionBytes)
        : _table{backendTable}
    {
        auto const config = localInterface(provider);
        mxlFabricsBackendDomainInfo info{};
        requireOk(_table, _table.domain_open(&config, MXL_FABRICS_BACKEND_TARGET, &_targetDomain, &info), "domain_open (target)");
        CHECK((info.flags & MXL_FABRICS_BACKEND_CONNECTIONLESS) != 0);
        targetDomainFlags = info.flags;
        std::vector<mxlFabricsBackendSegment> segments;
        for (auto const bytes : regionBytes)
        {
            regions.emplace_back(bytes);
        }
        for (auto& region : regions)
        {
            segments.push_back({region.data(), region.size(), nullptr});
        }
        requireOk(_table, _table.target_open(_targetDomain, segments.data(), static_cast<std::uint32_t>(segments.size()), 0, 42, &_target),
                  "target_open");
    }

    InProcessTarget::~InProcessTarget()
    {
        closeTarget();
    }

    TargetTicket InProcessTarget::ticket() const
    {
        TargetTicket ticket{42, {}, 0, nullptr, 0};
        requireOk(_table, _table.target_address(_target, &ticket.address, &ticket.format), "target_address");
        requireOk(_table, _table.target_regions(_target, &ticket.regions, &ticket.regionCount), "target_regions");
        return ticket;
    }

    void InProcessTarget::takeArrivals()
    {
        for (int arrived = 1; _target != nullptr && arrived != 0;)
        {
            std::uint32_t immediate = 0;
            requireOk(_table, _table.target_next_arrival(_target, 0, nullptr, nullptr, &arrived, &immediate), "target_next_arrival");
            if (arrived != 0)
            {
                arrivals.push_back(immediate);
            }
        }
    }

    void InProcessTarget::closeTarget()
    {
        if (_target != nullptr)
        {
            _table.target_close(_target);
            _target = nullptr;
        }
        if (_targetDomain != nullptr)
        {
            _table.domain_close(_targetDomain);
            _targetDomain = nullptr;
        }
    }

    Pair::Pair(mxlFabricsBackend const& backendTable, mxlFabricsProvider provider, std::vector<std::size_t> const& regionBytes,
               std::vector<std::uint8_t> sourceBytes, std::size_t depth)
        : InProcessTarget{backendTable, provider, regionBytes}
        , Initiator{backendTable, provider, std::move(sourceBytes), depth}
    {
        connect(ticket());
    }

    void Pair::pump()
    {
        takeArrivals();
        pollCompletions();
    }

    void Pair::probe()
    {
        auto const context = 1'000'000 + ++_probes;
        REQUIRE(pumpUntil([&] { return write(context, 0, 0, 0, 1, 1, std::nullopt); }));
        REQUIRE(pumpUntil([&] { return !completions.empty() && completions.back().context == context; }));
        CHECK(completions.back().status == MXL_STATUS_OK);
        completions.clear();
    }
}
