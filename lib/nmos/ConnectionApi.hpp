// The IS-05 Connection API of a node (v1.1 and v1.2, the same resources at both), below /x-nmos/connection/ on its HTTP
// endpoint: the one Sender or Receiver of its Node API, with the transport parameters its owner gives (docs/operations.md,
// "NMOS Connection API (IS-05)"). The HTTP thread stages and activates; scheduled activations run on a timer thread of
// this class; the owner's loop picks up what became active with takeActivated() and acts on it.
#pragma once

#include "HttpRoutes.hpp"

#include "ConnectionResource.hpp"

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

namespace mxl::nmos
{
    class ConnectionApi
    {
    public:
        static constexpr char const* pathPrefix = "/x-nmos/connection";

        // The transport parameters, given the URL of this endpoint's own Connection API resource.
        using ParamsOf = std::function<std::vector<TransportParam>(std::string const& resourceUrl)>;

        ConnectionApi(Role role, std::string endpointId, std::string apiHost, bool masterEnable, ParamsOf params);

        ConnectionApi(ConnectionApi const&) = delete;
        ConnectionApi& operator=(ConnectionApi const&) = delete;

        // Every request below pathPrefix; answers 503 until start().
        HttpReply handle(HttpRequest const& request);

        // Once the endpoint's port is known: builds the resource, whose parameters may name this endpoint's URL.
        void start(std::uint16_t port, bool secure);

        // The active document after activations the caller has not taken yet, or nullopt.
        std::optional<nlohmann::json> takeActivated();

        [[nodiscard]] std::string const& endpointId() const noexcept
        {
            return _endpointId;
        }

    private:
        Role _role;
        std::string _endpointId;
        std::string _apiHost;
        bool _masterEnable;
        ParamsOf _params;

        std::mutex _mutex;
        std::condition_variable_any _changed;
        std::unique_ptr<ConnectionResource> _resource;
        std::uint64_t _takenActivations = 0;
        std::jthread _timer;

        HttpReply route(HttpRequest const& request);
        HttpReply answerEndpoint(HttpRequest const& request, std::string const& what);
        HttpReply patchStaged(std::string const& body);
        // POST of bulk/senders or bulk/receivers; `ourKind` when the path names this service's kind of endpoint.
        HttpReply postBulk(std::string const& body, bool ourKind);
        ConnectionResource::PatchOutcome applyStaged(nlohmann::json const& document);
        void runTimer(std::stop_token const& stop);
    };
}
