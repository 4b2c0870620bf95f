// The fabrics services of a domain, as their status files (lib/client/ServiceStatusFile.hpp) tell: a line per
// service under its flow in list mode, a "Services" section in detail mode, and -g's removal of the files of services
// whose process is gone. A file older than three status intervals, or whose pid no longer exists, shows as stale.
#pragma once

#include <client/ServiceStatusFile.hpp>

#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace mxl::tools::info
{
    class DomainServices
    {
    public:
        explicit DomainServices(std::filesystem::path const& domain);

        // "      service target: active, grains 1200, 50.0/s, lost 0, reconnects 0, latency p50 1.20 ms, updated 0.3 s ago"
        // for every service of the flow.
        void printListLines(std::string const& flowId) const;
        // The services of flows not in `listed` (a flow removed under a running initiator, say).
        void printOthers(std::set<std::string> const& listed) const;
        // The "Services" section of the detail mode.
        void printDetail(std::string const& flowId) const;
        // "warning: ..." on stderr for every unreadable status file; in detail mode only those named after the flow.
        void printWarnings(std::string const& flowId = {}) const;

    private:
        std::vector<client::ServiceStatusEntry> _entries;
        std::uint64_t _now = 0;
    };

    // Removes the status files whose pid is gone, and says which.
    void collectServiceStatusFiles(std::filesystem::path const& domain);
}
