// How a shm initiator learns that its target is gone. UCX 1.13's shared-memory transports (posix, sysv) have no peer
// failure handler, so their endpoints are created without error handling and nothing reports a vanished peer. A shm
// target therefore holds a shared flock on /dev/shm/mxl-ucx-<FNV-1a of its worker address> while it lives; an
// initiator that can take the lock exclusively (or finds no file) knows the target is gone. flocks belong to open file
// descriptions, so this also works for a target in the initiator's own process, and they vanish with a crashed
// process, whose empty file the first initiator to notice removes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mxl::fabrics::ucx
{
    class PresenceFile
    {
    public:
        explicit PresenceFile(std::vector<std::uint8_t> const& workerAddress);
        ~PresenceFile();

        PresenceFile(PresenceFile const&) = delete;
        PresenceFile& operator=(PresenceFile const&) = delete;

    private:
        std::string _path;
        int _descriptor = -1;
    };

    // Why the target of `workerAddress` is gone, or nullopt while its presence file is held.
    [[nodiscard]] std::optional<std::string> absenceOf(std::vector<std::uint8_t> const& workerAddress);
}
