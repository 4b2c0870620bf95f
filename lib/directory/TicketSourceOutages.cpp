#include "TicketSourceOutages.hpp"

#include <common/Log.hpp>

#include <fmt/format.h>

#include <utility>

namespace mxl::directory
{
    namespace
    {
        // A peer that invents a new kind at every answer costs this many lines per outage, not one per poll.
        constexpr std::size_t kindsPerOutage = 8;
    }

    bool TicketSourceOutages::news(SourceFailure const& failure)
    {
        bool last = false;
        return _said.try_emplace(failure.source, kindsPerOutage).first->second.admit(failure.why, last);
    }

    bool TicketSourceOutages::news(std::vector<SourceFailure> const& failures)
    {
        bool any = false;
        for (auto const& failure : failures)
        {
            any = news(failure) || any;
        }
        return any;
    }

    void TicketSourceOutages::note(BackgroundTicketFetch::Outcome const& fetched, bool keeping)
    {
        if (!fetched.ticket)
        {
            if (!news(fetched.failures) && _noTicket)
            {
                log::debug("no ticket: {}", fetched.failure);
                return;
            }
            _noTicket = true;
            log::warn("no ticket{}: {}; still fetching", keeping ? " now (keeping the current one)" : "", fetched.failure);
            return;
        }
        auto const originFailed = _said.erase(fetched.origin) > 0;
        if (std::exchange(_noTicket, false) || originFailed)
        {
            log::info("ticket source '{}' gives a ticket again", fetched.origin);
        }
        for (auto const& failure : fetched.failures)
        {
            if (news(failure))
            {
                log::warn("ticket source '{}' gives no ticket: {}; using the next one, '{}', meanwhile (said again once it gives one)",
                          failure.source, failure.why, fetched.origin);
            }
            else
            {
                log::debug("ticket source '{}' gives no ticket: {}", failure.source, failure.why);
            }
        }
    }
}
