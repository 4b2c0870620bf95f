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
        if (status.role != _role || status.flowId != _flowId)
        {
            if (!_role.empty())
            {
                client::removeServiceStatusFile(_config.domain, _role, _flowId, status.pid);
            }
            for (auto const& left : client::removeLeftServiceStatusFiles(_config.domain, status))
            {
                log::info("status file: removed the one an earlier run (pid {}, gone) of this service left", left.pid);
            }
        }
        _role = status.role;
        _flowId = status.flowId;
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
