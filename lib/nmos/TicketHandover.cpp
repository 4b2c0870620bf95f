#include "TicketHandover.hpp"

#include <common/Log.hpp>

#include "SenderLookup.hpp"
#include <HttpClient.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <optional>

namespace mxl::nmos
{
    namespace
    {
        using json = nlohmann::json;

        // A sender on another host may be slow to answer; the handover's thread waits this long at most per attempt.
        constexpr std::chrono::milliseconds patchTimeout{1000};
        constexpr std::chrono::milliseconds retryInterval{1000};

        // PATCHes `body` to the staged/ of the Connection API resource `resourceUrl`; the failure, or nullopt.
        std::optional<std::string> patchStaged(std::string const& resourceUrl, json const& body)
        {
            constexpr std::string_view scheme = "http://";
            auto const slash = resourceUrl.find('/', scheme.size());
            if (!resourceUrl.starts_with(scheme) || slash == std::string::npos)
            {
                return fmt::format("'{}' is not an http://host:port/path URL", resourceUrl);
            }
            auto path = resourceUrl.substr(slash);
            path += path.ends_with('/') ? "staged" : "/staged";
            auto const origin = resourceUrl.substr(0, slash);
            auto const outcome = httpRequest(origin, "PATCH", path, body.dump(), patchTimeout);
            if (auto const* failure = std::get_if<std::string>(&outcome))
            {
                return *failure;
            }
            if (auto const& answer = std::get<HttpAnswer>(outcome); answer.status / 100 != 2)
            {
                return describeAnswer(origin, "PATCH", path, answer);
            }
            return std::nullopt;
        }

        json handover(std::string const& receiverId, json ticket)
        {
            return {{"receiver_id", receiverId},
                    {"transport_params", json::array({{{"ext_mxl_target_ticket", std::move(ticket)}}})},
                    {"activation", {{"mode", "activate_immediate"}}}};
        }
    }

    TicketHandover::TicketHandover(SenderAddress sender, std::string receiverId, bool enable)
        : _sender{std::move(sender)}
        , _receiverId{std::move(receiverId)}
        , _senderUrl{_sender.url}
        , _senderName{_sender.url.empty() ? "sender " + _sender.id : _sender.url}
        , _enable{enable}
        , _worker{[this] { run(); }}
    {
    }

    TicketHandover::~TicketHandover()
    {
        retire();
        _worker.join();
    }

    void TicketHandover::maintain(std::string const& ticketJson)
    {
        {
            std::lock_guard lock{_mutex};
            if (ticketJson == _wanted)
            {
                return;
            }
            _wanted = ticketJson;
        }
        _changed.notify_all();
    }

    void TicketHandover::retire()
    {
        {
            std::lock_guard lock{_mutex};
            _retiring = true;
        }
        _changed.notify_all();
    }

    bool TicketHandover::done() const
    {
        std::lock_guard lock{_mutex};
        return _done;
    }

    void TicketHandover::run()
    {
        std::unique_lock lock{_mutex};
        auto nextAttempt = Clock::now();
        while (!_retiring)
        {
            if (_wanted.empty() || _wanted == _handedOver)
            {
                _changed.wait(lock);
                continue;
            }
            if (Clock::now() < nextAttempt)
            {
                _changed.wait_until(lock, nextAttempt);
                continue;
            }
            auto const wanted = _wanted;
            lock.unlock();
            bool const taken = attempt([&] { return located() && handOver(wanted); });
            lock.lock();
            nextAttempt = taken ? Clock::now() : Clock::now() + retryInterval;
        }
        lock.unlock();
        attempt(
            [this]
            {
                release();
                return true;
            });
        lock.lock();
        _done = true;
    }

    bool TicketHandover::located()
    {
        if (!_senderUrl.empty())
        {
            return true;
        }
        if (!_sender.query)
        {
            return false;
        }
        auto const found = nmos::lookUpSenderConnectionApi(*_sender.query, _sender.id);
        if (auto const* failure = std::get_if<nmos::LookupFailure>(&found))
        {
            if (failure->reason != _lastProblem)
            {
                _lastProblem = failure->reason;
                log::warn("IS-05: cannot find the Connection API of sender {} in the Query API at {}: {}; retrying every {} ms", _sender.id,
                          _sender.query->url, failure->reason, retryInterval.count());
            }
            return false;
        }
        _senderUrl = std::get<std::string>(found);
        _senderName = _senderUrl;
        _lastProblem.clear();
        log::info("IS-05: sender {} found in the Query API at {}: its Connection API resource is {}", _sender.id, _sender.query->url,
                  _senderUrl);
        return true;
    }

    bool TicketHandover::attempt(std::function<bool()> const& request)
    {
        // The sender's URL came from an IS-05 request: whatever the HTTP client makes of it is a failed attempt, never
        // an exception that ends the thread and the process.
        try
        {
            return request();
        }
        catch (std::exception const& error)
        {
            log::warn("IS-05: cannot speak to {}: {}", _senderName, error.what());
            return false;
        }
    }

    bool TicketHandover::handOver(std::string const& ticketJson)
    {
        auto body = handover(_receiverId, ticketJson);
        if (_enable)
        {
            body["master_enable"] = true;
        }
        if (auto const problem = patchStaged(_senderUrl, body))
        {
            if (*problem != _lastProblem)
            {
                _lastProblem = *problem;
                log::warn("IS-05: cannot hand the ticket to sender {}: {}; retrying every {} ms", _senderUrl, *problem,
                          retryInterval.count());
            }
            return false;
        }
        log::info("IS-05: ticket handed to sender {}{}", _senderUrl, _enable ? " (master_enable true)" : "");
        std::lock_guard lock{_mutex};
        _handedOver = ticketJson;
        _enable = false;
        _lastProblem.clear();
        return true;
    }

    void TicketHandover::release()
    {
        if (_handedOver.empty())
        {
            return;
        }
        auto body = handover(_receiverId, nullptr);
        body["receiver_id"] = nullptr;
        if (auto const problem = patchStaged(_senderUrl, body))
        {
            log::warn("IS-05: cannot take the ticket back from sender {}: {}; it keeps writing until the target's next epoch", _senderUrl,
                      *problem);
            return;
        }
        log::info("IS-05: ticket taken back from sender {}", _senderUrl);
    }
}
