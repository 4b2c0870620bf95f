#include "BackgroundPublication.hpp"

#include <common/Log.hpp>

#include <utility>

namespace mxl::directory
{
    namespace
    {
        // How often the thread looks at the lease; TicketPublication keeps it alive every ttl/3.
        constexpr std::chrono::milliseconds tick{100};
    }

    BackgroundPublication::BackgroundPublication(std::string const& endpoint, std::string key, std::chrono::seconds ttl,
                                                 std::chrono::milliseconds timeout, TicketPublication::Report report)
        : _publication{endpoint, std::move(key), ttl, timeout,
                       [this, report = std::move(report)](TicketPublication::Outcome outcome, std::string const& message)
                       {
                           if (outcome != TicketPublication::Outcome::Repeated)
                           {
                               _answering = outcome == TicketPublication::Outcome::Published;
                           }
                           report(outcome, message);
                       }}
        , _worker{[this](std::stop_token const& stop) { run(stop); }}
    {
    }

    BackgroundPublication::~BackgroundPublication()
    {
        _worker.request_stop();
        _worker.join();
        _publication.withdraw();
    }

    void BackgroundPublication::publish(std::string ticketJson)
    {
        {
            std::lock_guard lock{_mutex};
            _pending = std::move(ticketJson);
        }
        _changed.notify_all();
    }

    void BackgroundPublication::run(std::stop_token const& stop)
    {
        std::unique_lock lock{_mutex};
        while (!stop.stop_requested())
        {
            auto pending = std::exchange(_pending, std::nullopt);
            lock.unlock();
            auto const now = TicketPublication::Clock::now();
            // The publication reports its own failures; anything else it throws must not end the thread and the process.
            try
            {
                if (pending)
                {
                    _publication.publish(*pending, now);
                }
                _publication.maintain(now);
            }
            catch (std::exception const& error)
            {
                log::warn("etcd: {}; the target goes on and retries", error.what());
                std::lock_guard again{_mutex};
                if (pending && !_pending)
                {
                    _pending = std::move(pending);
                }
            }
            lock.lock();
            _changed.wait_for(lock, stop, tick, [this] { return _pending.has_value(); });
        }
    }
}
