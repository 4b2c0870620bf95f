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
        // A third of the lease: two keep-alives may fail before the key expires. In the clock's ticks, as whole seconds
        // would make a 2 s lease's third 0 s, a keep-alive at every call.
        _nextAttempt = now + std::chrono::duration_cast<Clock::duration>(_ttl) / 3;
        try
        {
            if (_lease != 0 && _published)
            {
                if (!_client.keepAlive(_lease))
                {
                    failed(Failure::Expired,
                           fmt::format("etcd {}: lease {} of '{}' expired; granting a new one and publishing the ticket again",
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
            reportPublished();
        }
        catch (DirectoryError const& error)
        {
            // Without knowing whether etcd kept the lease, start over with a new one; the old one expires by itself.
            _lease = 0;
            _published = false;
            failed(Failure::Unanswered, error.what());
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
            this->held();
            return false;
        }
        if (held && held->lease != 0 && held->lease != _lease)
        {
            // Another publisher's, under a lease of its own (a second target of this flow under the same etcd_domain):
            // not fought over, or initiators would see the two tickets take turns.
            failed(Failure::Foreign,
                   fmt::format("etcd {}: the ticket at '{}' is held under lease {}, not this target's {}: another target publishes "
                               "there; left to it until it goes",
                               _client.endpoint(), _key, held->lease, _lease));
            return false;
        }
        // Deleted, or overwritten without a lease or under this one: initiators would find nothing, or what was put there.
        failed(held ? Failure::Replaced : Failure::Deleted,
               fmt::format("etcd {}: the ticket at '{}' was {} by someone else; publishing it again", _client.endpoint(), _key,
                           held ? "replaced" : "deleted"));
        _published = false;
        return true;
    }

    void TicketPublication::failed(Failure failure, std::string const& message)
    {
        // Another failure after the ticket was put again is news; the same one again is the outage going on.
        if (!_failing || (_republished && failure != _failure))
        {
            _failing = true;
            _failure = failure;
            _republished = false;
            _failuresSinceRepublished = 0;
            _report(Outcome::Failed, message);
            return;
        }
        if (_republished)
        {
            ++_failuresSinceRepublished;
        }
        _report(Outcome::Repeated, message);
    }

    void TicketPublication::reportPublished()
    {
        auto const message =
            fmt::format("etcd {}: ticket published at '{}' (lease {}, {} s)", _client.endpoint(), _key, _lease, _ttl.count());
        if (!_failing)
        {
            _report(Outcome::Published, message);
            return;
        }
        if (_republished)
        {
            _report(Outcome::Repeated, message);
            return;
        }
        _republished = true;
        _report(Outcome::Published, message + "; further failures of this outage are logged once a keep-alive holds the lease");
    }

    void TicketPublication::held()
    {
        if (_failing && _failuresSinceRepublished > 0)
        {
            _report(Outcome::Published, fmt::format("etcd {}: lease {} held through a keep-alive: the ticket at '{}' stays published "
                                                    "(after {} more failures, logged at debug level)",
                                                    _client.endpoint(), _lease, _key, _failuresSinceRepublished));
        }
        _failing = false;
        _republished = false;
        _failuresSinceRepublished = 0;
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
                failed(Failure::Unanswered, failure);
            }
            catch (...)
            {
                // A report that cannot be made on the way out changes nothing: the lease expires by itself.
            }
        }
    }
}
