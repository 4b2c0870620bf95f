#include "BackgroundTicketFetch.hpp"

#include <utility>

namespace mxl::directory
{
    BackgroundTicketFetch::BackgroundTicketFetch(TicketSource source)
        : _source{std::move(source)}
        , _worker{[this](std::stop_token const& stop) { run(stop); }}
    {
    }

    BackgroundTicketFetch::~BackgroundTicketFetch()
    {
        _worker.request_stop();
        _worker.join();
    }

    void BackgroundTicketFetch::request()
    {
        {
            std::lock_guard lock{_mutex};
            _wanted = true;
        }
        _asked.notify_all();
    }

    std::optional<BackgroundTicketFetch::Outcome> BackgroundTicketFetch::take()
    {
        std::lock_guard lock{_mutex};
        return std::exchange(_done, std::nullopt);
    }

    void BackgroundTicketFetch::run(std::stop_token const& stop)
    {
        std::unique_lock lock{_mutex};
        while (_asked.wait(lock, stop, [this] { return _wanted; }))
        {
            _wanted = false;
            lock.unlock();
            Outcome outcome;
            // The sources report what failed in lastFailure(); anything else they throw must not end the thread.
            try
            {
                outcome.ticket = _source.fetch();
                outcome.origin = _source.lastOrigin();
                outcome.failure = _source.lastFailure();
                outcome.failures = _source.lastFailures();
            }
            catch (std::exception const& error)
            {
                outcome.failure = error.what();
            }
            lock.lock();
            _done = std::move(outcome);
        }
    }
}
