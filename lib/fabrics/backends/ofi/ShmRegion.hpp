// libfabric's shm provider (1.17) keeps each endpoint in a file /dev/shm/<name>, where its address is
// "fi_shm://<name>". It removes the file only when the endpoint is closed: a process that dies leaves it behind (16 MiB
// of tmpfs each), and an endpoint of the same name can then never be created again (fi_enable fails with EBUSY), so a
// named target could not be restarted after a crash. Writing to an address whose file is gone crashes inside the
// provider, so an initiator looks for the file before it (re)connects.
//
// Every shm endpoint of this library therefore holds a shared flock on its region file while it lives (flocks work
// across processes and pid namespaces, and vanish with their process). A region nobody holds belongs to an endpoint of
// ours that died: it is removed before an endpoint of that name is created, and an initiator writing to it knows its
// target has ended. Peers built on the MXL SDK hold no lock; their regions are only ever looked for, never removed.
#pragma once

#include "fabrics/ticket/TargetInfo.hpp"

#include <rdma/fabric.h>

#include <filesystem>
#include <optional>
#include <vector>

namespace mxl::fabrics
{
    class Endpoint;

    // The region file of an shm address ("fi_shm://<name>", NUL-terminated or not); nullopt for other addresses.
    [[nodiscard]] std::optional<std::filesystem::path> shmRegionOfAddress(std::vector<std::uint8_t> const& address);

    // The region file of an shm ticket; nullopt for tickets of other providers.
    [[nodiscard]] std::optional<std::filesystem::path> shmRegionOf(TargetInfo const& ticket);

    enum class ShmRegionState
    {
        Gone,
        // The file exists and no endpoint holds it: its endpoint was ours and has ended, or it is an SDK peer's.
        Unheld,
        Held,
    };

    [[nodiscard]] ShmRegionState probeShmRegion(std::filesystem::path const& region);

    // A shared lock on the region file of a live endpoint, for the endpoint's lifetime.
    class ShmRegionHold
    {
    public:
        explicit ShmRegionHold(std::filesystem::path const& region);
        ~ShmRegionHold();
        ShmRegionHold(ShmRegionHold&& other) noexcept;
        ShmRegionHold& operator=(ShmRegionHold&& other) noexcept;
        ShmRegionHold(ShmRegionHold const&) = delete;
        ShmRegionHold& operator=(ShmRegionHold const&) = delete;

    private:
        int _fd = -1;
    };

    // Enables `endpoint`, made from `info`. For shm: first removes the files of earlier endpoints of this name that
    // nobody holds, then holds the region the provider created. nullopt for other providers.
    std::optional<ShmRegionHold> enableEndpoint(Endpoint& endpoint, fi_info const& info, bool shm);
}
