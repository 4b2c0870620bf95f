// Where an initiator takes its ticket from: files, http:// URLs and etcd:// keys, tried in order until one gives a
// ticket. What failed is kept so that the caller can say why it has no ticket.
#pragma once

#include <directory/Ticket.hpp>

#include <SigningKeys.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace mxl::directory
{
    // The text at `source` (an http:// URL, an etcd://host:port/key or a file path), or nullopt with `why`.
    std::optional<std::string> readTicketText(std::string const& source, std::chrono::milliseconds timeout, std::string& why);

    // The ticket in `text`, or nullopt with `why`. With `keys`, only a ticket signed with them, its signature removed.
    std::optional<Ticket> verifiedTicket(std::string text, std::optional<signing::SigningKeys> const& keys, std::string& why);

    // A source that gave no ticket at a fetch, and why.
    struct SourceFailure
    {
        std::string source;
        std::string why;
    };

    class TicketSource
    {
    public:
        // With `keys`, only tickets signed with them are given out, without their signature.
        TicketSource(std::vector<std::string> sources, std::chrono::milliseconds timeout, std::optional<signing::SigningKeys> keys);

        // The first ticket any source gives, or nullopt (lastFailure() then says why for each source).
        std::optional<Ticket> fetch();

        [[nodiscard]] std::string const& lastFailure() const noexcept
        {
            return _lastFailure;
        }

        // The sources the last fetch tried in vain: those before the one that gave the ticket, or all of them.
        [[nodiscard]] std::vector<SourceFailure> const& lastFailures() const noexcept
        {
            return _lastFailures;
        }

        // Where the last ticket came from.
        [[nodiscard]] std::string const& lastOrigin() const noexcept
        {
            return _lastOrigin;
        }

        // verifiedTicket() with this source's keys, for tickets that come from elsewhere (an IS-05 activation).
        [[nodiscard]] std::optional<Ticket> verifiedTicket(std::string text, std::string& why) const
        {
            return directory::verifiedTicket(std::move(text), _keys, why);
        }

        [[nodiscard]] bool empty() const noexcept
        {
            return _sources.empty();
        }

    private:
        std::vector<std::string> _sources;
        std::chrono::milliseconds _timeout;
        std::optional<signing::SigningKeys> _keys;
        std::string _lastFailure;
        std::vector<SourceFailure> _lastFailures;
        std::string _lastOrigin;
    };
}
