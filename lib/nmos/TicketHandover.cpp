#include "TicketHandover.hpp"

#include <common/BoundedJson.hpp>
#include <common/Log.hpp>
#include <common/PrintableText.hpp>

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
        constexpr std::chrono::milliseconds handoverTimeout{1000};
        constexpr std::chrono::milliseconds retryInterval{1000};

        // `method` of `leaf` (staged or active) of the Connection API resource `resourceUrl`: the answer's JSON body, or
        // the failure.
        std::variant<json, std::string> exchange(std::string const& resourceUrl, std::string const& method, std::string_view leaf,
                                                 std::string const& body = {})
        {
            // A sender served over TLS (BCP-003-01) advertises an https:// Connection API.
            auto const schemeEnd = resourceUrl.find("://");
            auto const slash = schemeEnd == std::string::npos ? std::string::npos : resourceUrl.find('/', schemeEnd + 3);
            if (!isHttpUrl(resourceUrl) || slash == std::string::npos)
            {
                return fmt::format("'{}' is not an http:// or https://host:port/path URL", printableText(resourceUrl, quotedAnswerChars));
            }
            auto path = resourceUrl.substr(slash);
            path += path.ends_with('/') ? "" : "/";
            path += leaf;
            auto const origin = resourceUrl.substr(0, slash);
            auto const outcome = httpRequest(origin, method, path, body, handoverTimeout);
            if (auto const* failure = std::get_if<std::string>(&outcome))
            {
                return *failure;
            }
            auto const& answer = std::get<HttpAnswer>(outcome);
            if (answer.status / 100 != 2)
            {
                return describeAnswer(origin, method, path, answer);
            }
            return mxl::parseJsonOrDiscarded(answer.body);
        }

        // PATCHes `body` to the resource's staged parameters: the failure, or nullopt.
        std::optional<std::string> patchStaged(std::string const& resourceUrl, json const& body)
        {
            auto const outcome = exchange(resourceUrl, "PATCH", "staged", body.dump());
            auto const* failure = std::get_if<std::string>(&outcome);
            return failure ? std::optional{*failure} : std::nullopt;
        }

        // The receiver a sender's active receiver_id names when it is not `receiverId` (null: none).
        std::optional<std::string> otherReceiver(json const& receiver, std::string const& receiverId)
        {
            return receiver.is_string() && receiver.get<std::string>() != receiverId ? std::optional{receiver.get<std::string>()}
                                                                                     : std::nullopt;
        }

        // The resource's active parameters, whose receiver_id is a string or null, or the failure.
        std::variant<json, std::string> activeParameters(std::string const& resourceUrl)
        {
            auto outcome = exchange(resourceUrl, "GET", "active");
            if (auto const* active = std::get_if<json>(&outcome))
            {
                if (!active->is_object() || !active->contains("receiver_id") ||
                    !((*active)["receiver_id"].is_string() || (*active)["receiver_id"].is_null()))
                {
                    return fmt::format("its active parameters have no receiver_id: {}", mxl::quoteJson(*active));
                }
            }
            return outcome;
        }

        // Active parameters that no activation made: the sender's process started afresh (a restart) and forgot what it
        // was activated with, since staged and active parameters live in the process only.
        bool neverActivated(json const& active)
        {
            auto const activation = active.find("activation");
            return active["receiver_id"].is_null() && (activation == active.end() || !activation->is_object() ||
                                                       !activation->contains("mode") || (*activation)["mode"].is_null());
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
        , _connects{enable}
        , _enable{enable}
        , _worker{[this] { run(); }}
    {
    }

    TicketHandover::~TicketHandover()
    {
        retire(1);
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

    void TicketHandover::retire(int attempts)
    {
        {
            std::lock_guard lock{_mutex};
            _releaseAttempts = _retiring ? std::min(_releaseAttempts, attempts) : attempts;
            _retiring = true;
        }
        _changed.notify_all();
    }

    bool TicketHandover::done() const
    {
        std::lock_guard lock{_mutex};
        return _done;
    }

    bool TicketHandover::released() const
    {
        std::lock_guard lock{_mutex};
        return _released;
    }

    void TicketHandover::probeSender()
    {
        {
            std::lock_guard lock{_mutex};
            _probeWanted = true;
            _senderDisabled = false;
            ++_probeGeneration;
        }
        _changed.notify_all();
    }

    bool TicketHandover::senderDisabled() const
    {
        std::lock_guard lock{_mutex};
        return _senderDisabled;
    }

    void TicketHandover::run()
    {
        std::unique_lock lock{_mutex};
        auto nextAttempt = Clock::now();
        while (!_retiring)
        {
            if (_probeWanted && !_handedOver.empty() && !_displaced)
            {
                _probeWanted = false;
                auto const generation = _probeGeneration;
                lock.unlock();
                bool const disabled = attempt([this] { return disabledForThisReceiver(); });
                lock.lock();
                // A probe asked meanwhile cleared the answer: this one may predate the flow's latest quiet spell.
                if (generation == _probeGeneration)
                {
                    _senderDisabled = disabled;
                }
                continue;
            }
            if (_wanted.empty() || _wanted == _handedOver || _displaced)
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
        for (int made = 1;; ++made)
        {
            lock.unlock();
            bool const released = attempt([this] { return release(); });
            lock.lock();
            if (released || made >= _releaseAttempts)
            {
                _released = released;
                break;
            }
            // A retire from the destructor cuts the attempts short.
            _changed.wait_for(lock, retryInterval, [&] { return made >= _releaseAttempts; });
        }
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
            warnOnce(Find, failure->reason,
                     fmt::format("IS-05: cannot find the Connection API of sender {} in the Query API at {}: {}; retrying every {} ms",
                                 _sender.id, _sender.query->url, failure->reason, retryInterval.count()));
            return false;
        }
        _senderUrl = std::get<std::string>(found);
        _senderName = _senderUrl;
        _problems[Find].recovered();
        log::info("IS-05: sender {} found in the Query API at {}: its Connection API resource is {}", _sender.id, _sender.query->url,
                  _senderUrl);
        return true;
    }

    void TicketHandover::warnOnce(Step step, std::string const& reason, std::string const& line)
    {
        if (bool last = false; _problems[step].admit(reason, last))
        {
            log::warn("{}{}", line, last ? " (further failures are not logged until one succeeds)" : "");
        }
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
        if (!_handedOver.empty() && !stillFeedsThisReceiver())
        {
            return false;
        }
        if (_displaced)
        {
            return true;
        }
        auto body = handover(_receiverId, ticketJson);
        if (_enable)
        {
            body["master_enable"] = true;
        }
        // A request left without an answer may have been applied all the same: from now on there may be a ticket to
        // take back.
        _attempted = true;
        if (auto const problem = patchStaged(_senderUrl, body))
        {
            warnOnce(HandOver, *problem,
                     fmt::format("IS-05: cannot hand the ticket to sender {}: {}; retrying every {} ms", _senderUrl, *problem,
                                 retryInterval.count()));
            return false;
        }
        log::info("IS-05: ticket handed to sender {}{}", _senderUrl, _enable ? " (master_enable true)" : "");
        std::lock_guard lock{_mutex};
        _handedOver = ticketJson;
        _enable = false;
        _problems[HandOver].recovered();
        return true;
    }

    bool TicketHandover::disabledForThisReceiver()
    {
        auto const active = activeParameters(_senderUrl);
        auto const* parameters = std::get_if<json>(&active);
        // A sender that cannot be asked is not known to be disabled: its silence stays a stall.
        return parameters && parameters->contains("master_enable") && (*parameters)["master_enable"] == false &&
               (*parameters)["receiver_id"] == _receiverId;
    }

    bool TicketHandover::stillFeedsThisReceiver()
    {
        auto const active = activeParameters(_senderUrl);
        if (auto const* problem = std::get_if<std::string>(&active))
        {
            warnOnce(Ask, *problem,
                     fmt::format("IS-05: cannot ask sender {} which receiver it feeds: {}; retrying every {} ms", _senderUrl, *problem,
                                 retryInterval.count()));
            return false;
        }
        _problems[Ask].recovered();
        auto const& parameters = std::get<json>(active);
        if (_connects && !_enable && neverActivated(parameters))
        {
            log::info("IS-05: sender {} has started afresh since the ticket was handed over (its active parameters were never "
                      "activated): handing it over again with master_enable true, as receiver {}'s activation did",
                      _senderUrl, _receiverId);
            _enable = true;
        }
        if (auto const other = otherReceiver(parameters["receiver_id"], _receiverId))
        {
            // Another receiver was activated with this sender since: a sender feeds one receiver, and the two would take
            // it from each other at every new epoch.
            log::warn("IS-05: sender {} feeds receiver {} now: receiver {} no longer hands it its ticket (activate it again to take the "
                      "sender back)",
                      _senderUrl, *other, _receiverId);
            _displaced = true;
        }
        return true;
    }

    bool TicketHandover::release()
    {
        if (!_attempted)
        {
            return true;
        }
        auto const feeds = activeParameters(_senderUrl);
        auto const* active = std::get_if<json>(&feeds);
        if (auto const other = active ? otherReceiver((*active)["receiver_id"], _receiverId) : std::nullopt)
        {
            log::info("IS-05: sender {} feeds receiver {} now: nothing to take back", _senderUrl, *other);
            return true;
        }
        auto body = handover(_receiverId, nullptr);
        body["receiver_id"] = nullptr;
        auto const problem = active ? patchStaged(_senderUrl, body) : std::optional{std::get<std::string>(feeds)};
        if (!problem)
        {
            log::info("IS-05: ticket taken back from sender {}", _senderUrl);
            _problems[TakeBack].recovered();
            return true;
        }
        warnOnce(TakeBack, *problem, fmt::format("IS-05: cannot take the ticket back from sender {}: {}", _senderUrl, *problem));
        return false;
    }
}
