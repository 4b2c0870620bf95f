// The setups the process tests share: a source flow written by the test in one domain, a target service receiving
// into another, an initiator service sending between them; each with the short timeouts that keep tests quick.
#pragma once

#include "NotifySocket.hpp"
#include "ServiceProcess.hpp"
#include "ServiceTestData.hpp"
#include "TempDomain.hpp"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mxl::test
{
    struct ServiceDirectories
    {
        TempDomain source{"svc-source"};
        TempDomain destination{"svc-destination"};
        TempDomain tickets{"svc-tickets"};

        [[nodiscard]] std::string ticketFile() const
        {
            return (tickets.path() / "target.ticket.json").string();
        }
    };

    // Target settings on tcp; `node` is the address to listen on, `definition` the flow to receive into.
    Settings targetSettings(ServiceDirectories const& directories, std::string const& node = "127.0.0.1",
                            std::filesystem::path const& definition = serviceTestFlow());

    // Initiator settings taking the ticket from `ticket` (a file or an http:// URL) and sending flow `flowId`.
    Settings initiatorSettings(ServiceDirectories const& directories, std::string const& ticket,
                               std::string const& flowId = serviceTestFlowId);

    // The same settings over shm instead of tcp: no address, port or HTTP listener on an address.
    Settings overSharedMemory(Settings settings);

    // `settings` with `key` set to `value`, in place of any value it had.
    Settings with(Settings settings, std::string const& key, std::string const& value);

    // "NOTIFY_SOCKET=<path>" and, when `watchdogUsec` is not 0, "WATCHDOG_USEC=<n>".
    std::vector<std::string> notifyEnvironment(NotifySocket const& socket, unsigned watchdogUsec = 0);

    // The notify socket of a ReadyService: a base of it, so that it is made before the process and outlives it.
    struct NotifyingEnd
    {
        NotifySocket notify;
    };

    // A service started with `settings` that has reported READY=1 on its own notify socket within `timeout`.
    class ReadyService : public NotifyingEnd, public ServiceProcess
    {
    public:
        explicit ReadyService(Settings const& settings, std::chrono::milliseconds timeout = std::chrono::seconds{10});
    };

    struct ToolOutput
    {
        std::optional<int> exitCode;
        // stdout and stderr together.
        std::string text;
    };

    // Runs a program of the build tree (e.g. "tools/mxl-info/mxl-info") to its end, at most 10 s.
    ToolOutput runBuildTool(std::string const& relative, std::vector<std::string> const& arguments);

    // Replaces the ticket file at `path` with `text` at once (written aside, then renamed), as a publisher does.
    void writeTicketFile(std::string const& path, std::string const& text);

    // A ticket file the initiator follows in place of the target's own: "initiator.ticket.json" in the tickets folder,
    // holding `text`. Returns its path.
    std::string ownTicketFile(ServiceDirectories const& directories, std::string const& text);

    // The units (grains, or batches for audio) the initiator of `flowId` has reported lost so far, from the status file
    // in its domain (rewritten every status interval, so possibly a little behind); 0 before there is one.
    std::uint64_t initiatorLostSoFar(ServiceDirectories const& directories, std::string const& flowId);

    // How often `text` stands in `output`.
    std::size_t occurrences(std::string const& output, std::string const& text);

    // The "epoch" of a ticket file, 0 when it cannot be read.
    std::uint64_t ticketEpoch(std::string const& path);
}
