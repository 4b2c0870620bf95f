// libfabric's shm provider (1.17) keeps each endpoint in a file /dev/shm/<name>, where its address is
// "fi_shm://<name>". Writing to an address whose file is gone crashes inside the provider, so an initiator looks for
// the file before it (re)connects: a missing file means the target process has ended.
#pragma once

#include "TargetInfo.hpp"

#include <filesystem>
#include <optional>

namespace mxl::fabrics
{
    // The region file of an shm ticket; nullopt for tickets of other providers.
    [[nodiscard]] std::optional<std::filesystem::path> shmRegionOf(TargetInfo const& ticket);
}
