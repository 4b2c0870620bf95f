#include "ServiceLines.hpp"

#include <mxl/time.h>

#include <fmt/format.h>

#include <cstdio>

namespace mxl::tools::info
{
    namespace
    {
        std::string formatLatency(std::optional<double> seconds)
        {
            return seconds ? fmt::format("{:.2f} ms", *seconds * 1e3) : std::string{"n/a"};
        }

        // "active", or "stale (pid 42 is gone; last state active)": stale figures never read as healthy.
        std::string stateOf(client::ServiceStatus const& status, std::uint64_t now)
        {
            auto const stale = client::serviceStaleReason(status, now);
            return stale ? fmt::format("stale ({}; last state {})", *stale, status.state) : status.state;
        }

        std::string rateOf(client::ServiceStatus const& status, std::uint64_t now)
        {
            return client::serviceStaleReason(status, now) ? std::string{"-"} : fmt::format("{:.1f}/s", status.grainsPerSecond);
        }

        std::string summary(client::ServiceStatus const& status, std::uint64_t now)
        {
            return fmt::format("{}, grains {}, rate {}, lost {}, reconnects {}, latency p50 {}, updated {} ago", stateOf(status, now),
                               status.counters.units, rateOf(status, now), status.counters.lost, status.counters.reconnects,
                               formatLatency(status.latencyP50Seconds), client::formatStatusAge(status, now));
        }

        void serviceRow(std::string_view name, std::string_view value)
        {
            fmt::print("    {:<16}: {}\n", name, value);
        }
    }

    DomainServices::DomainServices(std::filesystem::path const& domain)
        : _entries{client::readServiceStatusFiles(domain)}
        , _now{mxlGetTime()}
    {
    }

    void DomainServices::printListLines(std::string const& flowId) const
    {
        for (auto const& entry : _entries)
        {
            auto const* status = std::get_if<client::ServiceStatus>(&entry.content);
            if (status != nullptr && status->flowId == flowId)
            {
                fmt::print("      service {}: {}\n", status->role, summary(*status, _now));
            }
        }
    }

    void DomainServices::printOthers(std::set<std::string> const& listed) const
    {
        bool first = true;
        for (auto const& entry : _entries)
        {
            auto const* status = std::get_if<client::ServiceStatus>(&entry.content);
            if (status == nullptr || listed.contains(status->flowId))
            {
                continue;
            }
            if (first)
            {
                fmt::print("\nservices of flows not in this domain:\n");
                first = false;
            }
            fmt::print("  {} : {} - {}\n", status->role, status->flowId, summary(*status, _now));
        }
    }

    void DomainServices::printDetail(std::string const& flowId) const
    {
        bool any = false;
        for (auto const& entry : _entries)
        {
            auto const* status = std::get_if<client::ServiceStatus>(&entry.content);
            if (status == nullptr || status->flowId != flowId)
            {
                continue;
            }
            if (!any)
            {
                fmt::print("Services\n");
                any = true;
            }
            fmt::print("  {} ({})\n", status->role, entry.path.string());
            serviceRow("State", stateOf(*status, _now));
            serviceRow("Pid", fmt::format("{}", status->pid));
            serviceRow("Config", status->config.empty() ? std::string{"(not said)"} : status->config);
            serviceRow("Ticket epoch", fmt::format("{}", status->epoch));
            serviceRow("Transport", status->transport.empty() ? std::string{"(no ticket yet)"} : status->transport);
            serviceRow("Updated",
                       fmt::format("{} ago (status interval {} ms)", client::formatStatusAge(*status, _now), status->statusIntervalMs));
            serviceRow("Grains", fmt::format("{}", status->counters.units));
            serviceRow("Bytes", fmt::format("{}", status->counters.bytes));
            serviceRow("Rate", client::serviceStaleReason(*status, _now)
                                   ? std::string{"-"}
                                   : fmt::format("{:.1f} grains/s, {:.2f} MB/s", status->grainsPerSecond, status->bytesPerSecond / 1e6));
            serviceRow("Late", fmt::format("{}", status->counters.late));
            serviceRow("Lost", fmt::format("{}", status->counters.lost));
            serviceRow("Reconnects", fmt::format("{}", status->counters.reconnects));
            serviceRow("Stalls", fmt::format("{}", status->counters.stalls));
            serviceRow("Latency", fmt::format("p50 {}, p90 {}, p99 {}", formatLatency(status->latencyP50Seconds),
                                              formatLatency(status->latencyP90Seconds), formatLatency(status->latencyP99Seconds)));
            for (auto const& target : status->targets)
            {
                serviceRow("Target", fmt::format("epoch {}: {} for {} ms{}", target.epoch, target.state, target.forMs,
                                                 target.reason.empty() ? std::string{} : fmt::format(" ({})", target.reason)));
            }
        }
        if (!any)
        {
            fmt::print("Services          : none (no service publishes a status file for this flow)\n");
        }
    }

    void DomainServices::printWarnings(std::string const& flowId) const
    {
        for (auto const& entry : _entries)
        {
            auto const* problem = std::get_if<std::string>(&entry.content);
            if (problem == nullptr || (!flowId.empty() && entry.path.filename().string().find(flowId) == std::string::npos))
            {
                continue;
            }
            std::fflush(stdout);
            fmt::print(stderr, "mxl-info: warning: service status file '{}' is unreadable ({}); ignored\n", entry.path.string(), *problem);
        }
    }

    void collectServiceStatusFiles(std::filesystem::path const& domain)
    {
        std::size_t removed = 0;
        for (auto const& entry : client::readServiceStatusFiles(domain))
        {
            auto const* status = std::get_if<client::ServiceStatus>(&entry.content);
            if (status == nullptr || !client::processGone(*status))
            {
                continue;
            }
            std::error_code error;
            if (std::filesystem::remove(entry.path, error))
            {
                fmt::print("removed service status file {} ({} of flow {}, pid {} is gone)\n", entry.path.string(), status->role,
                           status->flowId, status->pid);
                ++removed;
            }
        }
        fmt::print("removed {} service status files of stopped services in {}\n", removed, domain.string());
    }
}
