#include "Registration.hpp"

#include <HttpClient.hpp>
#include <common/Backoff.hpp>
#include <common/Log.hpp>
#include <common/OutageLog.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <iterator>
#include <utility>
#include <variant>

namespace mxl::nmos
{
    namespace
    {
        using Clock = std::chrono::steady_clock;
        using json = nlohmann::json;

        // One request; a registry slower than this counts as unreachable.
        constexpr auto requestTimeout = std::chrono::milliseconds{2000};
        // All the DELETEs of a stop together: a dead registry must not hold the service's stop.
        constexpr auto withdrawTimeout = std::chrono::milliseconds{2000};
        // Registration attempts while the registry is unreachable; the longest wait stays well below the 12 s after
        // which a registry forgets a node, so that a registry that is back soon sees the node again soon.
        constexpr auto retryInitial = std::chrono::milliseconds{200};
        constexpr auto retryMax = std::chrono::milliseconds{5000};
    }

    Registration::Registration(RegistryAddress registry, NodeApi const& node)
        : _registry{std::move(registry)}
        , _node{node}
        , _nodeId{node.resources().value().node()["id"].get<std::string>()}
        , _thread{[this](std::stop_token const& stop) { run(stop); }}
    {
    }

    void Registration::resourcesChanged()
    {
        {
            std::lock_guard lock{_mutex};
            _changed = true;
        }
        _wake.notify_one();
    }

    void Registration::run(std::stop_token const& stop)
    {
        Backoff backoff{retryInitial, retryMax};
        bool registered = false;
        // Recovered only by a heartbeat answered: one outage however often the registry takes the node back.
        OutageLog outage;
        auto nextHeartbeat = Clock::now();
        std::unique_lock lock{_mutex};
        while (!stop.stop_requested())
        {
            auto const changed = std::exchange(_changed, false);
            lock.unlock();
            auto const now = Clock::now();
            std::optional<std::string> problem;
            if ((!registered && backoff.attemptDue(now)) || (registered && changed))
            {
                problem = registerResources();
                if (!problem && !registered)
                {
                    std::vector<std::string> types;
                    std::ranges::transform(_held, std::back_inserter(types), [](auto const& entry) { return entry.first; });
                    // During an outage (a registry that forgets the node at every heartbeat, say) once is enough.
                    log::emit(outage.ongoing() ? log::Level::Debug : log::Level::Info, "NMOS registry {}: node {} registered ({})",
                              _registry.url, _nodeId, fmt::join(types, ", "));
                    nextHeartbeat = now + _registry.heartbeatInterval;
                }
                registered = !problem;
            }
            else if (registered && now >= nextHeartbeat)
            {
                problem = heartbeat();
                nextHeartbeat = now + _registry.heartbeatInterval;
                registered = !problem;
                if (registered)
                {
                    // The registry keeps the node: the outage, if any, is over. Only now, so that a registry which takes
                    // every registration and forgets it by the next heartbeat is registered with at the back-off's pace.
                    if (outage.ongoing())
                    {
                        log::info("NMOS registry {}: node {} registered, and its heartbeat answered", _registry.url, _nodeId);
                    }
                    outage.recovered();
                    backoff.succeeded();
                }
            }
            if (bool last = false; problem && outage.admit(*problem, last))
            {
                log::warn("NMOS registry {}: {}; registering again with back-off (grains keep moving){}", _registry.url, *problem,
                          last ? "; further failures are not logged until a heartbeat is answered" : "");
            }
            else if (problem)
            {
                log::debug("NMOS registry {}: {}", _registry.url, *problem);
            }
            lock.lock();
            auto const wakeAt = registered ? nextHeartbeat : backoff.nextAttempt();
            _wake.wait_until(lock, stop, wakeAt, [this] { return _changed; });
        }
        lock.unlock();
        withdraw();
    }

    std::optional<std::string> Registration::registerResources()
    {
        auto const resources = _node.resources();
        auto const path = _registry.apiPath + "/resource";
        for (auto const& [type, document] : resources.value().registrationOrder())
        {
            auto const id = document["id"].get<std::string>();
            auto held = std::ranges::find_if(_held, [&](auto const& entry) { return entry.second["id"] == id; });
            if (!_resendAll && held != _held.end() && held->second == document)
            {
                continue;
            }
            auto const outcome =
                httpRequest(_registry.origin, "POST", path, json{{"type", type}, {"data", document}}.dump(), requestTimeout);
            if (auto const* why = std::get_if<std::string>(&outcome))
            {
                _resendAll = true;
                return fmt::format("cannot register {} {}: {}", type, id, *why);
            }
            auto const& answer = std::get<HttpAnswer>(outcome);
            if (answer.status != 200 && answer.status != 201)
            {
                _resendAll = true;
                return fmt::format("the registry refused {} {}: {}", type, id, describeAnswer(_registry.origin, "POST", path, answer));
            }
            if (held == _held.end())
            {
                _held.emplace_back(type, document);
            }
            else
            {
                if (!_resendAll)
                {
                    log::info("NMOS registry {}: {} {} registered again, version {}", _registry.url, type, id,
                              document["version"].get<std::string>());
                }
                held->second = document;
            }
        }
        _resendAll = false;
        return std::nullopt;
    }

    std::optional<std::string> Registration::heartbeat()
    {
        auto const path = fmt::format("{}/health/nodes/{}", _registry.apiPath, _nodeId);
        auto const outcome = httpRequest(_registry.origin, "POST", path, "", requestTimeout);
        if (auto const* why = std::get_if<std::string>(&outcome))
        {
            // The registry may come back empty: everything is POSTed again once it answers.
            _resendAll = true;
            return fmt::format("heartbeat failed: {}", *why);
        }
        auto const& answer = std::get<HttpAnswer>(outcome);
        if (answer.status == 200)
        {
            return std::nullopt;
        }
        _resendAll = true;
        if (answer.status == 404)
        {
            _held.clear();
            return fmt::format("the heartbeat of node {} answered 404: the registry restarted or forgot the node", _nodeId);
        }
        return fmt::format("heartbeat refused: {}", describeAnswer(_registry.origin, "POST", path, answer));
    }

    void Registration::withdraw()
    {
        auto const deadline = Clock::now() + withdrawTimeout;
        std::size_t deleted = 0;
        for (auto entry = _held.rbegin(); entry != _held.rend(); ++entry)
        {
            auto const left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
            auto const path = fmt::format("{}/resource/{}s/{}", _registry.apiPath, entry->first, entry->second["id"].get<std::string>());
            auto const outcome = left.count() > 0 ? httpRequest(_registry.origin, "DELETE", path, "", left)
                                                  : std::variant<HttpAnswer, std::string>{"no time left"};
            auto const* answer = std::get_if<HttpAnswer>(&outcome);
            if (answer == nullptr || (answer->status != 204 && answer->status != 200 && answer->status != 404))
            {
                log::warn("NMOS registry {}: stopping without deleting node {}: {}; the registry drops it 12 s after its last heartbeat",
                          _registry.url, _nodeId,
                          answer == nullptr ? std::get<std::string>(outcome) : describeAnswer(_registry.origin, "DELETE", path, *answer));
                return;
            }
            ++deleted;
        }
        if (deleted != 0)
        {
            log::info("NMOS registry {}: node {} and its resources deleted ({} resources, children first)", _registry.url, _nodeId,
                      deleted);
        }
    }
}
