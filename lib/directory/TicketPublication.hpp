// A target's ticket in the directory for as long as the target lives: the key is put under a lease that the target keeps
// alive, so that the ticket of a target that dies (SIGKILL, power loss, a lost link to etcd) disappears when the lease
// expires, and initiators never connect to a target that no longer exists. A clean stop deletes it at once.
//
// etcd being down never stops the target: failures are reported and retried on the next keep-alive, and a lease that
// expired meanwhile (or an etcd that came back without its data) is replaced and the ticket put again. At each
// keep-alive the key is read back: one deleted, or overwritten without a lease or under this one, is put again; one
// that another publisher's lease holds is reported once and left to it.
//
// An outage ends only when a keep-alive holds the lease and the key holds the ticket: the same failure again after the
// ticket was put again (an etcd that grants leases and forgets them by the next keep-alive, a peer that deletes the key
// at once) is the same outage, not a failure and a publication every keep-alive.
#pragma once

#include "EtcdClient.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace mxl::directory
{
    class TicketPublication
    {
    public:
        using Clock = std::chrono::steady_clock;

        enum class Outcome
        {
            // The ticket is in the directory (first time, or again after a failure or a lost lease).
            Published,
            // Failed: the message says what and the publication retries on its own.
            Failed,
            // A failure or a publication inside an outage already reported: detail for whoever wants it.
            Repeated,
        };
        // Published and Failed on changes only: the first failure of an outage, the first publication during it, and a
        // keep-alive that ends an outage which went on after that publication.
        using Report = std::function<void(Outcome, std::string const& message)>;

        TicketPublication(std::string const& endpoint, std::string key, std::chrono::seconds ttl, std::chrono::milliseconds timeout,
                          Report report);
        ~TicketPublication();

        TicketPublication(TicketPublication const&) = delete;
        TicketPublication& operator=(TicketPublication const&) = delete;

        // Replaces the ticket (a new epoch) under the current lease.
        void publish(std::string ticketJson, Clock::time_point now);
        // Call from the service's loop: keeps the lease alive every ttl/3, checks the key holds the ticket, and repairs
        // what failed.
        void maintain(Clock::time_point now);
        // Deletes the key and revokes the lease; failures are reported, never thrown.
        void withdraw() noexcept;

        [[nodiscard]] std::string const& key() const noexcept
        {
            return _key;
        }

        // The ticket is in the directory as far as this publication knows.
        [[nodiscard]] bool published() const noexcept
        {
            return _published;
        }

    private:
        EtcdClient _client;
        std::string _key;
        std::chrono::seconds _ttl;
        Report _report;
        std::optional<std::string> _ticket;
        std::int64_t _lease = 0;
        bool _published = false;
        enum class Failure
        {
            Expired,
            Deleted,
            Replaced,
            Foreign,
            Unanswered,
        };

        // Reported failed, and no keep-alive has held the lease since.
        bool _failing = false;
        Failure _failure = Failure::Unanswered;
        // Published during the outage, and failures since then that were reported as Repeated.
        bool _republished = false;
        int _failuresSinceRepublished = 0;
        Clock::time_point _nextAttempt{};

        void attempt(Clock::time_point now);
        // After a keep-alive: whether the key lost the ticket (deleted, or overwritten without a lease or under this one)
        // and must be put again. One that another publisher's lease holds is reported and left alone.
        [[nodiscard]] bool repairable();
        void failed(Failure failure, std::string const& message);
        void reportPublished();
        // A keep-alive held the lease and the key holds the ticket: the outage, if any, is over.
        void held();
    };
}
