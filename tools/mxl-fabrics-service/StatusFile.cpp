#include "StatusFile.hpp"

#include "ServiceLog.hpp"

#include <mxl/time.h>

#include <unistd.h>

#include <stdexcept>

namespace mxl::service
{
    StatusFile::StatusFile(ServiceConfig const& config)
        : _config{config}
    {
    }

    StatusFile::~StatusFile()
    {
        if (!_role.empty())
        {
            client::removeServiceStatusFile(_config.domain, _role, _flowId, ::getpid());
        }
    }

    void StatusFile::publish(bridge::Metrics const& metrics, std::vector<client::ServiceTargetStatus> targets)
    {
        client::ServiceStatus status;
        metrics.fill(status);
        status.pid = ::getpid();
        status.config = _config.origin;
        status.updatedAtTaiNs = ::mxlGetTime();
        status.statusIntervalMs = static_cast<std::uint64_t>(_config.statusInterval.count());
        status.targets = std::move(targets);
        if (_role.empty())
        {
            // The first write; a service's role and flow are its own for its whole run.
            _role = status.role;
            _flowId = status.flowId;
            for (auto const& left : client::removeLeftServiceStatusFiles(_config.domain, status))
            {
                log::info("status file: removed the one an earlier run (pid {}, gone) of this service left", left.pid);
            }
            // Two services of one flow and role in one domain on one host have the same NMOS ids.
            for (auto const& other :
                 _config.nmosRegistry ? client::otherRunningServices(_config.domain, status) : std::vector<client::ServiceStatus>{})
            {
                log::warning("nmos: another {} service of this flow runs in this domain (pid {}, settings from {}); both register as "
                             "the same NMOS node and {}: give nmos_registry to one of them only",
                             status.role, other.pid, other.config, status.role == "initiator" ? "sender" : "receiver");
            }
        }
        try
        {
            client::writeServiceStatusFile(_config.domain, status);
            if (_failing)
            {
                log::info("status file written again");
                _failing = false;
            }
        }
        catch (std::runtime_error const& error)
        {
            if (!_failing)
            {
                log::warning("status file: {}; mxl-info will show this service as stale", error.what());
                _failing = true;
            }
        }
    }
}
