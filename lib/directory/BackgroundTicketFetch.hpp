// An initiator's ticket, fetched by a thread of its own: a source that is slow, accepts connections and never answers,
// or drips its answer costs that thread its timeouts, never the initiator's grain loop, which asks for a fetch and
// takes the outcome once there is one.
#pragma once

#include "TicketSource.hpp"

#include <condition_variable>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

namespace mxl::directory
{
    class BackgroundTicketFetch
    {
    public:
        // What one fetch found: the first ticket a source gave, where from; and why each source tried before it, or
        // each source, gave none.
        struct Outcome
        {
            std::optional<Ticket> ticket;
            std::string origin;
            std::string failure;
            std::vector<SourceFailure> failures;
        };

        explicit BackgroundTicketFetch(TicketSource source);
        // Stops the thread: a fetch under way ends within its timeout.
        ~BackgroundTicketFetch();

        BackgroundTicketFetch(BackgroundTicketFetch const&) = delete;
        BackgroundTicketFetch& operator=(BackgroundTicketFetch const&) = delete;

        // Asks for a fetch and returns at once; a fetch asked for already, and not yet begun, answers this one too.
        void request();

        // The outcome of the latest fetch that ended since the last take, or nullopt.
        [[nodiscard]] std::optional<Outcome> take();

        // The sources and keys, for what needs no fetch: verifying a ticket that came from elsewhere, and whether any
        // source is configured.
        [[nodiscard]] TicketSource const& source() const noexcept
        {
            return _source;
        }

    private:
        // Only the thread fetches; source() gives the loop the parts that do not change.
        TicketSource _source;
        std::mutex _mutex;
        std::condition_variable_any _asked;
        bool _wanted = false;
        std::optional<Outcome> _done;
        std::jthread _worker;

        void run(std::stop_token const& stop);
    };
}
