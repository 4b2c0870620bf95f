// Registers the resources of a service's Node API with an AMWA IS-04 v1.3 Registration API (a registry), on a thread of
// its own so that a slow or dead registry never holds the grain loop: node, device, source, flow, then the sender or
// receiver (parents first, as registries require); a heartbeat every nmos_heartbeat_s; everything again after a failed
// heartbeat (404: the registry restarted or garbage-collected the node; no answer: it may have); a resource whose
// document changed (an IS-05 activation) is POSTed again. An unreachable registry is logged once per outage and retried
// with back-off. On destruction the resources are deleted, children first, within a short deadline.
#pragma once

#include "NmosNodeApi.hpp"
#include "ServiceConfig.hpp"

#include <nlohmann/json.hpp>

#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace mxl::service
{
    class NmosRegistration
    {
    public:
        // `node` must have started (NmosNodeApi::start) and outlive this.
        NmosRegistration(NmosRegistry registry, NmosNodeApi const& node);
        ~NmosRegistration();

        NmosRegistration(NmosRegistration const&) = delete;
        NmosRegistration& operator=(NmosRegistration const&) = delete;

        // A document of the Node API changed (NmosNodeApi::activated): it is registered again now, not at the next
        // heartbeat.
        void resourcesChanged();

    private:
        NmosRegistry _registry;
        NmosNodeApi const& _node;
        std::string _nodeId;

        std::mutex _mutex;
        std::condition_variable _wake;
        bool _stopping = false;
        bool _changed = false;

        // Only the thread uses these. What the registry holds as far as this service knows, (type, document) in
        // registration order; and whether all of it must be POSTed again because the registry may have lost it.
        std::vector<std::pair<std::string, nlohmann::json>> _held;
        bool _resendAll = true;
        std::thread _thread;

        void run();
        // POSTs every resource whose document the registry does not hold (all of them with _resendAll); why not, or
        // nullopt.
        std::optional<std::string> registerResources();
        std::optional<std::string> heartbeat();
        // DELETEs what the registry holds, children first.
        void withdraw();
    };
}
