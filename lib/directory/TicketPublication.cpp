#include "TicketPublication.hpp"

#include "DirectoryError.hpp"

#include <fmt/format.h>

namespace mxl::directory
{
    TicketPublication::TicketPublication(std::string const& endpoint, std::string key, std::chrono::seconds ttl,
                                         std::chrono::milliseconds timeout, Report report)
        : _client{endpoint, timeout}
        , _key{std::move(key)}
        , _ttl{ttl}
        , _report{std::move(report)}
    {
    }

    TicketPublication::~TicketPublication()
    {
        withdraw();
    }

    void TicketPublication::publish(std::string ticketJson, Clock::time_point now)
    {
        _ticket = std::move(ticketJson);
        _published = false;
        attempt(now);
    }

    void TicketPublication::maintain(Clock::time_point now)
    {
        if (_ticket && now >= _nextAttempt)
        {
            attempt(now);
        }
    }

    void TicketPublication::attempt(Clock::time_point now)
    {
        // A third of the lease: two keep-alives may fail before the key expires.
        _nextAttempt = now + _ttl / 3;
        try
        {
            if (_lease != 0 && _published)
            {
                if (!_client.keepAlive(_lease))
                {
                    failed(fmt::format("etcd {}: lease {} of '{}' expired; granting a new one and publishing the ticket again",
                                       _client.endpoint(), _lease, _key));
                    _lease = 0;
                    _published = false;
                }
                else if (!repairable())
                {
                    return;
                }
            }
            if (_lease == 0)
            {
                _lease = _client.grantLease(_ttl);
            }
            _client.put(_key, *_ticket, _lease);
            _published = true;
            _failing = false;
            _report(Outcome::Published,
                    fmt::format("etcd {}: ticket published at '{}' (lease {}, {} s)", _client.endpoint(), _key, _lease, _ttl.count()));
        }
        catch (DirectoryError const& error)
        {
            // Without knowing whether etcd kept the lease, start over with a new one; the old one expires by itself.
            _lease = 0;
            _published = false;
            failed(error.what());
        }
    }

    bool TicketPublication::repairable()
    {
        std::optional<KeyValue> held;
        try
        {
            held = _client.get(_key);
        }
        catch (DirectoryError const&)
        {
            // The keep-alive went through: the key is looked at again at the next one.
            return false;
        }
        if (held && held->value == *_ticket && held->lease == _lease)
        {
            return false;
        }
        if (held && held->lease != 0 && held->lease != _lease)
        {
            // Another publisher's, under a lease of its own (a second target of this flow under the same etcd_domain):
            // not fought over, or initiators would see the two tickets take turns.
            failed(fmt::format("etcd {}: the ticket at '{}' is held under lease {}, not this target's {}: another target publishes "
                               "there; left to it until it goes",
                               _client.endpoint(), _key, held->lease, _lease));
            return false;
        }
        // Deleted, or overwritten without a lease or under this one: initiators would find nothing, or what was put there.
        failed(fmt::format("etcd {}: the ticket at '{}' was {} by someone else; publishing it again", _client.endpoint(), _key,
                           held ? "replaced" : "deleted"));
        _published = false;
        return true;
    }

    void TicketPublication::failed(std::string const& message)
    {
        if (!_failing)
        {
            _failing = true;
            _report(Outcome::Failed, message);
        }
    }

    void TicketPublication::withdraw() noexcept
    {
        if (!_ticket)
        {
            return;
        }
        _ticket.reset();
        std::string failure;
        try
        {
            if (_published)
            {
                _client.remove(_key);
            }
            if (_lease != 0)
            {
                _client.revokeLease(_lease);
            }
        }
        catch (std::exception const& error)
        {
            failure = error.what();
        }
        _lease = 0;
        _published = false;
        if (!failure.empty())
        {
            try
            {
                failed(failure);
            }
            catch (...)
            {
                // A report that cannot be made on the way out changes nothing: the lease expires by itself.
            }
        }
    }
}
