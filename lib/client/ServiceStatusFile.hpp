// The status file a fabrics service publishes in the domain it serves, so that mxl-info can show the service's
// figures without talking to the process: <domain>/.mxl-services/<role>-<flow id>-<pid>.json, rewritten atomically
// (temporary file + rename) every status interval and removed on a clean stop. The pid tells apart two services of one
// flow and role in one domain, such as the two initiators of redundant paths. The hidden directory holds no
// `*.mxl-flow` entry, so flow listing and garbage collection never see it. The figures are those of /metrics.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace mxl::client
{
    // One target of an initiator, as the fabrics library reports it.
    struct ServiceTargetStatus
    {
        std::uint64_t epoch = 0;
        // "not connected", "connecting", "connected", "disconnected".
        std::string state;
        // Why the library says so (empty when it says nothing).
        std::string reason;
        // Milliseconds in this state.
        std::uint64_t forMs = 0;
    };

    // What a service has moved since it started, as /metrics, its STATUS= line and its status file all report it. A unit
    // is what one transfer moves: a grain of a video or data flow, or a batch of samples of an audio flow (the file
    // calls both "grains").
    struct ServiceCounters
    {
        std::uint64_t units = 0;
        std::uint64_t bytes = 0;
        std::uint64_t late = 0;
        std::uint64_t lost = 0;
        std::uint64_t reconnects = 0;
        std::uint64_t stalls = 0;
    };

    struct ServiceStatus
    {
        // "target" or "initiator".
        std::string role;
        std::string flowId;
        pid_t pid = 0;
        // Where the settings came from: "file '/etc/mxl/studio-a.conf'" or "the command line".
        std::string config;
        std::string state;
        std::uint64_t epoch = 0;
        // "rma" or "msg": the transport of the ticket served or followed; empty before the first ticket (and in files
        // written before the key existed).
        std::string transport;
        // Where the flow's payloads are: "host" or "device" (docs/device-flows.md); empty in files written before the key
        // existed.
        std::string payloadLocation;
        // A device flow's CUDA ordinal in its writer's process; nullopt for host memory.
        std::optional<std::int32_t> deviceIndex;
        // When the file was written.
        std::uint64_t updatedAtTaiNs = 0;
        std::uint64_t statusIntervalMs = 1000;
        ServiceCounters counters;
        // Target only: initiators that connected while another was connected (one ticket used twice); 0 in files
        // written before the key existed.
        std::uint64_t concurrentInitiators = 0;
        // Over the interval before the write.
        double grainsPerSecond = 0;
        double bytesPerSecond = 0;
        // Over the most recent grains; nullopt before the first grain.
        std::optional<double> latencyP50Seconds;
        std::optional<double> latencyP90Seconds;
        std::optional<double> latencyP99Seconds;
        // Initiator only.
        std::vector<ServiceTargetStatus> targets;
    };

    // <domain>/.mxl-services
    std::filesystem::path serviceStatusDirectory(std::filesystem::path const& domain);
    // <domain>/.mxl-services/<role>-<flow id>-<pid>.json
    std::filesystem::path serviceStatusPath(std::filesystem::path const& domain, std::string_view role, std::string_view flowId, pid_t pid);

    std::string serviceStatusJson(ServiceStatus const& status);
    // Throws std::runtime_error with a one-line reason when the text is not a status file.
    ServiceStatus parseServiceStatus(std::string_view text);

    // Creates the directory (0755) when needed and replaces the file (0644) atomically. Throws std::runtime_error.
    void writeServiceStatusFile(std::filesystem::path const& domain, ServiceStatus const& status);
    // Quietly does nothing when the file is not there.
    void removeServiceStatusFile(std::filesystem::path const& domain, std::string_view role, std::string_view flowId, pid_t pid) noexcept;

    struct ServiceStatusEntry
    {
        std::filesystem::path path;
        // The status, or a one-line reason why the file could not be read.
        std::variant<ServiceStatus, std::string> content;
    };

    // Every `*.json` of the domain's status directory, sorted by path; empty when there is no directory.
    std::vector<ServiceStatusEntry> readServiceStatusFiles(std::filesystem::path const& domain);

    // Whether a process with this pid exists (EPERM counts as existing).
    bool processExists(pid_t pid) noexcept;
    bool processGone(ServiceStatus const& status) noexcept;

    // Removes the files of `status`'s role and flow whose process is gone and whose settings came from the same place
    // (`config`): those an earlier run of this service left when it was killed. Another service's, such as the other
    // path of a redundant pair, stay for mxl-info to show as stale. Returns the statuses removed.
    std::vector<ServiceStatus> removeLeftServiceStatusFiles(std::filesystem::path const& domain, ServiceStatus const& status);

    // The services of `status`'s role and flow in the domain whose process runs, other than `status`'s own: the other
    // initiator of redundant paths, or none.
    std::vector<ServiceStatus> otherRunningServices(std::filesystem::path const& domain, ServiceStatus const& status);

    // Why the figures can no longer be trusted, or nullopt while they are current: the process is gone, or the file
    // was last written more than three status intervals before `nowTai`.
    std::optional<std::string> serviceStaleReason(ServiceStatus const& status, std::uint64_t nowTai);

    // "0.4 s", "12 s", "3 min": the age of the file at `nowTai`.
    std::string formatStatusAge(ServiceStatus const& status, std::uint64_t nowTai);
}
