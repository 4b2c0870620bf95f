// Registers the resources of a node's Node API with an AMWA IS-04 v1.3 Registration API (a registry), on a thread of
// its own so that a slow or dead registry never holds the grain loop: node, device, source, flow, then the sender or
// receiver (parents first, as registries require); a heartbeat every heartbeatInterval; everything again after a failed
// heartbeat (404: the registry restarted or garbage-collected the node; no answer: it may have); a resource whose
// document changed (an IS-05 activation) is POSTed again. An unreachable registry is logged for the first kinds of failure of an
// outage (OutageLog) and retried with back-off. On destruction the resources are deleted, children first, within a short deadline.
#pragma once

#include "NodeApi.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace mxl::nmos
{
    // The IS-04 v1.3 Registration API a node registers with.
    struct RegistryAddress
    {
        // As configured, for messages.
        std::string url;
        // "http://host:port", and the path of the Registration API there (ending in /x-nmos/registration/v1.3).
        std::string origin;
        std::string apiPath;
        std::chrono::seconds heartbeatInterval{5};
    };

    class Registration
    {
    public:
        // `node` must have started (NodeApi::start) and outlive this.
        Registration(RegistryAddress registry, NodeApi const& node);

        Registration(Registration const&) = delete;
        Registration& operator=(Registration const&) = delete;

        // A document of the Node API changed (NodeApi::activated): it is registered again now, not at the next
        // heartbeat.
        void resourcesChanged();

    private:
        RegistryAddress _registry;
        NodeApi const& _node;
        std::string _nodeId;

        std::mutex _mutex;
        std::condition_variable_any _wake;
        bool _changed = false;

        // Only the thread uses these. What the registry holds as far as this service knows, (type, document) in
        // registration order; and whether all of it must be POSTed again because the registry may have lost it.
        std::vector<std::pair<std::string, nlohmann::json>> _held;
        bool _resendAll = true;
        std::jthread _thread;

        void run(std::stop_token const& stop);
        // POSTs every resource whose document the registry does not hold (all of them with _resendAll); why not, or
        // nullopt.
        std::optional<std::string> registerResources();
        std::optional<std::string> heartbeat();
        // DELETEs what the registry holds, children first.
        void withdraw();
    };
}
