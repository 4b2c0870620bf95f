#include "TicketSourceOutages.hpp"

#include <common/Log.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace mxl::directory
{
    namespace
    {
        // A peer that invents a new kind at every answer costs this many lines per outage, not one per poll.
        constexpr std::size_t kindsPerOutage = 8;

        bool isHex(char c)
        {
            return std::isxdigit(static_cast<unsigned char>(c)) != 0;
        }
    }

    std::string failureKind(std::string const& why)
    {
        std::string kind;
        for (auto at = why.begin(); at != why.end();)
        {
            // What the peer sent, quoted (a parse error's "last read: '...'").
            if (auto const closing = std::find(std::next(at), why.end(), '\''); *at == '\'' && closing != why.end())
            {
                kind += "'*'";
                at = std::next(closing);
                continue;
            }
            auto const end = std::find_if_not(at, why.end(), isHex);
            if (end == at)
            {
                kind += *at++;
                continue;
            }
            if (std::any_of(at, end, [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }))
            {
                kind += '#';
            }
            else
            {
                kind.append(at, end);
            }
            at = end;
        }
        return kind;
    }

    bool TicketSourceOutages::news(SourceFailure const& failure)
    {
        auto& said = _said[failure.source];
        return said.size() < kindsPerOutage && said.insert(failureKind(failure.why)).second;
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
