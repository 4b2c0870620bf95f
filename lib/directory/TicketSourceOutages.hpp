// What an initiator says about its ticket sources: each kind of failure once per outage of a source, and once when
// the outage ends. A kind is the failure's text with its numbers and quotes masked, so that a peer whose answers carry a request
// counter, a timestamp or a varying parse-error column is one line, while a source that fails anew in another way
// (not JSON, then not an object) is said again. An outage is either no source giving a ticket, or a source ahead of
// the one used giving none, so that a broken primary is noticed while a later source serves. Repeats are logged at
// debug level.
#pragma once

#include "BackgroundTicketFetch.hpp"

#include <map>
#include <set>
#include <string>

namespace mxl::directory
{
    // `why` with every run of hexadecimal digits that holds a decimal digit masked as '#', and what it quotes in single
    // quotes as '*'.
    [[nodiscard]] std::string failureKind(std::string const& why);

    class TicketSourceOutages
    {
    public:
        // Logs what `fetched` changed. `keeping`: the initiator has a target, which it keeps while no source gives a
        // ticket.
        void note(BackgroundTicketFetch::Outcome const& fetched, bool keeping);

    private:
        // No source gave a ticket at the last fetch.
        bool _noTicket = false;
        // The kinds of failure said of each source since it last gave a ticket.
        std::map<std::string, std::set<std::string>> _said;

        // Whether any failure in `failures` is of a kind not said yet of its source; it is said from now on.
        bool news(std::vector<SourceFailure> const& failures);
        bool news(SourceFailure const& failure);
    };
}
