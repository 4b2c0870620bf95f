// The target's ticket in etcd, kept up by a thread of its own: an etcd that is down, slow or accepts connections and
// never answers costs that thread its request timeouts, never the target's grain loop.
#pragma once

#include "TicketPublication.hpp"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>

namespace mxl::directory
{
    class BackgroundPublication
    {
    public:
        BackgroundPublication(std::string const& endpoint, std::string key, std::chrono::seconds ttl, std::chrono::milliseconds timeout,
                              TicketPublication::Report report);
        // Stops the thread, then withdraws the ticket (at most a few request timeouts).
        ~BackgroundPublication();

        BackgroundPublication(BackgroundPublication const&) = delete;
        BackgroundPublication& operator=(BackgroundPublication const&) = delete;

        // Replaces the ticket; returns at once.
        void publish(std::string ticketJson);

        [[nodiscard]] std::string const& key() const noexcept
        {
            return _publication.key();
        }

        // Whether the last report was a publication, not a failure: false before etcd first answers and during an outage,
        // so that what the service says of a new ticket holds.
        [[nodiscard]] bool answering() const noexcept
        {
            return _answering.load();
        }

    private:
        std::atomic<bool> _answering{false};
        TicketPublication _publication;
        std::mutex _mutex;
        std::condition_variable_any _changed;
        std::optional<std::string> _pending;
        std::jthread _worker;

        void run(std::stop_token const& stop);
    };
}
