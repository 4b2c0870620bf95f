#include "ConnectionApi.hpp"

#include <common/Log.hpp>

#include "MxlTransport.hpp"
#include "NodeResources.hpp"
#include "TaiText.hpp"
#include <common/BoundedJson.hpp>

#include <mxl/time.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>

namespace mxl::nmos
{
    namespace
    {
        using json = nlohmann::json;

        // How long before a scheduled activation the timer stops sleeping (see runTimer()).
        constexpr std::chrono::milliseconds earlyWake{5};
        constexpr std::uint64_t longestWaitNs = 3600ULL * 1'000'000'000ULL;

        // What a refusal's log line quotes of the request: a client sends paths, ids and keys of any length, and the log
        // must not grow faster than what it sends.
        std::string cut(std::string_view text, std::size_t maxChars)
        {
            return text.size() <= maxChars ? std::string{text} : fmt::format("{}... ({} bytes)", text.substr(0, maxChars), text.size());
        }

        HttpReply jsonReply(unsigned status, json const& document)
        {
            return {status, "application/json", mxl::dumpJson(document)};
        }

        HttpReply errorReply(ConnectionError const& error)
        {
            return jsonReply(static_cast<unsigned>(error.status()), error.document());
        }

        HttpReply notAllowed(HttpRequest const& request, std::string const& allowed)
        {
            return errorReply(ConnectionError{405, fmt::format("{} {}: only {} here", request.method, request.path, allowed)});
        }

        bool reads(HttpRequest const& request)
        {
            return request.method == "GET" || request.method == "HEAD";
        }

        // A listing of sub-resources, answered to GET and HEAD only.
        HttpReply listing(HttpRequest const& request, json const& entries)
        {
            return reads(request) ? jsonReply(200, entries) : notAllowed(request, "GET and HEAD");
        }
    }

    ConnectionApi::ConnectionApi(Role role, std::string endpointId, std::string apiHost, bool masterEnable, ParamsOf params)
        : _role{role}
        , _endpointId{std::move(endpointId)}
        , _apiHost{std::move(apiHost)}
        , _masterEnable{masterEnable}
        , _params{std::move(params)}
        , _timer{[this](std::stop_token const& stop) { runTimer(stop); }}
    {
    }

    void ConnectionApi::start(std::uint16_t port, bool secure)
    {
        auto const kind = _role == Role::Sender ? "senders" : "receivers";
        auto const url = fmt::format("{}://{}:{}{}/v1.1/single/{}/{}/", secure ? "https" : "http", urlHost(_apiHost), port, pathPrefix,
                                     kind, _endpointId);
        auto resource = std::make_unique<ConnectionResource>(_role, _params(url), _masterEnable);
        std::lock_guard lock{_mutex};
        _resource = std::move(resource);
    }

    std::optional<json> ConnectionApi::takeActivated()
    {
        std::lock_guard lock{_mutex};
        if (!_resource || _resource->activations() == _takenActivations)
        {
            return std::nullopt;
        }
        _takenActivations = _resource->activations();
        return _resource->active();
    }

    HttpReply ConnectionApi::handle(HttpRequest const& request)
    {
        try
        {
            return route(request);
        }
        catch (ConnectionError const& error)
        {
            log::warn("IS-05: {} {} refused ({}): {}", request.method, cut(request.path, 160), error.status(), cut(error.what(), 400));
            return errorReply(error);
        }
    }

    HttpReply ConnectionApi::route(HttpRequest const& request)
    {
        // Collections are named with and without their trailing slash.
        auto path = request.path.substr(std::string_view{pathPrefix}.size());
        while (path.ends_with('/'))
        {
            path.pop_back();
        }
        if (path.empty())
        {
            auto versions = json::array();
            for (auto const* version : connectionApiVersions)
            {
                versions.push_back(std::string{version} + "/");
            }
            return listing(request, versions);
        }
        // Every version served has the same resources; BCP-007-03 asks for v1.2, v1.1 stays for existing controllers.
        auto const versioned = std::find_if(connectionApiVersions.begin(), connectionApiVersions.end(),
                                            [&](char const* version)
                                            {
                                                auto const prefix = fmt::format("/{}", version);
                                                return path == prefix || path.starts_with(prefix + "/");
                                            });
        if (versioned == connectionApiVersions.end())
        {
            throw ConnectionError{404, fmt::format("no resource {}: the Connection API versions here are {}", request.path,
                                                   fmt::join(connectionApiVersions, ", "))};
        }
        path = path.substr(std::string_view{*versioned}.size() + 1);
        if (path.empty())
        {
            return listing(request, json{"bulk/", "single/"});
        }
        if (path == "/single" || path == "/bulk")
        {
            return listing(request, json{"senders/", "receivers/"});
        }
        auto const kind = _role == Role::Sender ? "senders" : "receivers";
        if (path == "/bulk/senders" || path == "/bulk/receivers")
        {
            if (request.method != "POST")
            {
                return notAllowed(request, "POST");
            }
            return postBulk(request.body, path.ends_with(kind));
        }
        auto const ours = fmt::format("/single/{}", kind);
        if (path == "/single/senders" || path == "/single/receivers")
        {
            return listing(request, path == ours ? json::array({_endpointId + "/"}) : json::array());
        }
        auto const own = ours + "/" + _endpointId;
        if (path != own && !path.starts_with(own + "/"))
        {
            throw ConnectionError{404, fmt::format("no resource {}: this service's only {} is {}", request.path,
                                                   _role == Role::Sender ? "sender" : "receiver", _endpointId)};
        }
        return answerEndpoint(request, path.substr(own.size()));
    }

    HttpReply ConnectionApi::answerEndpoint(HttpRequest const& request, std::string const& what)
    {
        bool const sender = _role == Role::Sender;
        if (what.empty())
        {
            return listing(request, sender ? json{"constraints/", "staged/", "active/", "transportfile/", "transporttype/"}
                                           : json{"constraints/", "staged/", "active/", "transporttype/"});
        }
        if (what == "/staged" && request.method == "PATCH")
        {
            return patchStaged(request.body);
        }
        if (what == "/transportfile" && sender)
        {
            throw ConnectionError{404, "the MXL transport (urn:x-nmos:transport:mxl) has no transport file: the transport "
                                       "parameters (staged/, active/) carry everything"};
        }
        if (what != "/constraints" && what != "/staged" && what != "/active" && what != "/transporttype")
        {
            throw ConnectionError{404, fmt::format("no resource {}", request.path)};
        }
        if (!reads(request))
        {
            return notAllowed(request, what == "/staged" ? "GET, HEAD and PATCH" : "GET and HEAD");
        }
        if (what == "/transporttype")
        {
            return jsonReply(200, json(mxlTransport));
        }
        std::lock_guard lock{_mutex};
        if (!_resource)
        {
            throw ConnectionError{503, "the Connection API is starting"};
        }
        if (what == "/constraints")
        {
            return jsonReply(200, _resource->constraints());
        }
        return jsonReply(200, what == "/staged" ? _resource->staged() : _resource->active());
    }

    HttpReply ConnectionApi::patchStaged(std::string const& body)
    {
        auto const document = mxl::parseBoundedJson(body);
        if (!document.ok())
        {
            throw ConnectionError{400, fmt::format("the body is not JSON ({})", document.problem)};
        }
        auto const outcome = applyStaged(document.value);
        return jsonReply(static_cast<unsigned>(outcome.status), outcome.body);
    }

    HttpReply ConnectionApi::postBulk(std::string const& body, bool ourKind)
    {
        auto const requests = mxl::parseJsonOrDiscarded(body);
        auto const what = ourKind ? (_role == Role::Sender ? "sender" : "receiver") : (_role == Role::Sender ? "receiver" : "sender");
        if (!requests.is_array())
        {
            throw ConnectionError{400, fmt::format("the body is not a JSON array of {{\"id\", \"params\"}} objects (one per {})", what)};
        }
        // The whole body is checked before anything is staged, so a malformed entry stages nothing.
        for (std::size_t i = 0; i < requests.size(); ++i)
        {
            auto const& entry = requests[i];
            if (!entry.is_object() || !entry.contains("id") || !entry["id"].is_string() || !entry.contains("params") ||
                !entry["params"].is_object() || entry.size() != 2)
            {
                throw ConnectionError{400, fmt::format("entry {} of the body is {}; expected an object with exactly a string \"id\" "
                                                       "and an object \"params\"",
                                                       i, mxl::quoteJson(entry))};
            }
        }
        // Each entry answers what a PATCH of its own staged resource would have; the log says how many were refused, and
        // why the first was.
        auto results = json::array();
        std::size_t refused = 0;
        std::string firstRefusal;
        for (auto const& entry : requests)
        {
            auto const id = entry["id"].get<std::string>();
            try
            {
                if (!ourKind || id != _endpointId)
                {
                    throw ConnectionError{404, ourKind ? fmt::format("no {} {}: this service's only {} is {}", what, id, what, _endpointId)
                                                       : fmt::format("no {} {}: this service has no {}s", what, id, what)};
                }
                results.push_back({{"id", id}, {"code", applyStaged(entry["params"]).status}});
            }
            catch (ConnectionError const& error)
            {
                if (refused++ == 0)
                {
                    firstRefusal = fmt::format("{} {} ({}): {}", what, cut(id, 80), error.status(), cut(error.what(), 400));
                }
                results.push_back({{"id", id}, {"code", error.status()}, {"error", error.what()}, {"debug", nullptr}});
            }
        }
        if (refused > 0)
        {
            log::warn("IS-05: bulk activation: {} of {} entries refused; the first, {}", refused, requests.size(), firstRefusal);
        }
        return jsonReply(200, results);
    }

    ConnectionResource::PatchOutcome ConnectionApi::applyStaged(json const& document)
    {
        std::unique_lock lock{_mutex};
        if (!_resource)
        {
            throw ConnectionError{503, "the Connection API is starting"};
        }
        auto const outcome = _resource->patch(document, ::mxlGetTime());
        if (auto const at = _resource->scheduledFor())
        {
            log::info("IS-05: activation of {} {} scheduled for {}", _role == Role::Sender ? "sender" : "receiver", _endpointId,
                      taiText(*at));
        }
        lock.unlock();
        _changed.notify_all();
        return outcome;
    }

    void ConnectionApi::runTimer(std::stop_token const& stop)
    {
        std::unique_lock lock{_mutex};
        auto const scheduled = [this] { return _resource ? _resource->scheduledFor() : std::nullopt; };
        while (!stop.stop_requested())
        {
            auto const at = scheduled();
            if (!at)
            {
                _changed.wait(lock, stop, [&] { return scheduled().has_value(); });
                continue;
            }
            auto const now = ::mxlGetTime();
            if (_resource->activateIfDue(now))
            {
                continue;
            }
            // At most an hour at a time: an activation may be scheduled for any TAI time up to 2^64 ns, which no
            // steady-clock deadline can hold.
            auto const left = std::chrono::nanoseconds{static_cast<std::int64_t>(std::min<std::uint64_t>(*at - now, longestWaitNs))};
            if (left > earlyWake)
            {
                // TAI and the steady clock run at the same rate; waking is re-checked against TAI.
                _changed.wait_for(lock, stop, left - earlyWake, [&] { return scheduled() != at; });
                continue;
            }
            // The last stretch without sleeping: on a busy host a sleeping thread can wake a scheduler slice (tens of
            // ms) late, one already running meets the time within microseconds.
            lock.unlock();
            std::this_thread::yield();
            lock.lock();
        }
    }
}
