// What an initiator says about its ticket sources: each kind of failure once per outage of a source (OutageLog), and
// once when the outage ends. An outage is either no source giving a ticket, or a source ahead of
// the one used giving none, so that a broken primary is noticed while a later source serves. Repeats are logged at
// debug level.
#pragma once

#include "BackgroundTicketFetch.hpp"

#include <common/OutageLog.hpp>

#include <map>
#include <string>

namespace mxl::directory
{
    class TicketSourceOutages
    {
    public:
        // Logs what `fetched` changed. `keeping`: the initiator has a target, which it keeps while no source gives a
        // ticket.
        void note(BackgroundTicketFetch::Outcome const& fetched, bool keeping);

    private:
        // No source gave a ticket at the last fetch.
        bool _noTicket = false;
        // The failures said of each source since it last gave a ticket.
        std::map<std::string, OutageLog> _said;

        // Whether any failure in `failures` is of a kind not said yet of its source; it is said from now on.
        bool news(std::vector<SourceFailure> const& failures);
        bool news(SourceFailure const& failure);
    };
}
