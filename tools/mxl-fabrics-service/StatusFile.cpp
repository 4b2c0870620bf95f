#include "StatusFile.hpp"

#include "ServiceLog.hpp"

#include <mxl/time.h>

#include <unistd.h>

#include <stdexcept>

namespace mxl::service
{
    namespace
    {
        // Two services of one flow and role in one domain on one host (the two initiators of redundant paths) have the
        // same NMOS ids: both registering would show one sender whose Node API flips between them.
        void warnOfSameNmosIds(std::filesystem::path const& domain, client::ServiceStatus const& own)
        {
            for (auto const& entry : client::readServiceStatusFiles(domain))
            {
                auto const* other = std::get_if<client::ServiceStatus>(&entry.content);
                if (other != nullptr && other->role == own.role && other->flowId == own.flowId && other->pid != own.pid &&
                    !client::processGone(*other))
                {
                    log::warning("nmos: another {} service of this flow runs in this domain (pid {}, settings from {}); both "
                                 "register as the same NMOS node and {}: give nmos_registry to one of them only",
                                 own.role, other->pid, other->config, own.role == "initiator" ? "sender" : "receiver");
                }
            }
        }
    }

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
            if (_config.nmosRegistry)
            {
                warnOfSameNmosIds(_config.domain, status);
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
