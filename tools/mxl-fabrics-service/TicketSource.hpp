// Where an initiator takes its ticket from: the configured files, http:// URLs and etcd:// keys, tried in order until one gives a
// ticket. What failed is kept so that the service can say why it has no ticket.
#pragma once

#include <directory/Ticket.hpp>

#include <SigningKeys.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace mxl::service
{
    using directory::Ticket;

    class TicketSource
    {
    public:
        // With `keys`, only tickets signed with them are given out, without their signature.
        TicketSource(std::vector<std::string> sources, std::chrono::milliseconds httpTimeout, std::optional<signing::SigningKeys> keys);

        // The first ticket any source gives, or nullopt (lastFailure() then says why for each source).
        std::optional<Ticket> fetch();

        [[nodiscard]] std::string const& lastFailure() const noexcept
        {
            return _lastFailure;
        }

        // Where the last ticket came from.
        [[nodiscard]] std::string const& lastOrigin() const noexcept
        {
            return _lastOrigin;
        }

        // The ticket (without its signature, when this side holds keys and the signature holds), or nullopt with `why`;
        // also for tickets that come from elsewhere (an IS-05 activation).
        [[nodiscard]] std::optional<Ticket> verifiedTicket(std::string text, std::string& why) const;

        [[nodiscard]] bool empty() const noexcept
        {
            return _sources.empty();
        }

    private:
        std::vector<std::string> _sources;
        std::chrono::milliseconds _httpTimeout;
        std::optional<signing::SigningKeys> _keys;
        std::string _lastFailure;
        std::string _lastOrigin;
    };
}
