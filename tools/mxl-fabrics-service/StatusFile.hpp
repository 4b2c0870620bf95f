// The service's side of the status file in its domain (lib/client/ServiceStatusFile.hpp): written at every status
// tick, removed when the service stops cleanly; the file an earlier run of the same service left when it was killed is
// removed at the first write. A failed write is logged once and does not stop the service: the figures are still on
// /metrics and in STATUS=.
#pragma once

#include "ServiceConfig.hpp"
#include <bridge/Metrics.hpp>

#include <client/ServiceStatusFile.hpp>

#include <string>
#include <vector>

namespace mxl::service
{
    class StatusFile
    {
    public:
        explicit StatusFile(ServiceConfig const& config);
        ~StatusFile();

        StatusFile(StatusFile const&) = delete;
        StatusFile& operator=(StatusFile const&) = delete;

        // Call after metrics.statusLine(), whose rates it publishes.
        void publish(bridge::Metrics const& metrics, std::vector<client::ServiceTargetStatus> targets = {});

    private:
        ServiceConfig const& _config;
        // Of the first write, for the removal.
        std::string _role;
        std::string _flowId;
        bool _failing = false;
    };
}
