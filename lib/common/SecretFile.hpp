// Keys (ticket keys, TLS private keys, client secrets) are read only from files that their owner alone may read or
// write: a key that others can read is no longer a secret, so such a file is refused rather than used.
#pragma once

#include "BoundedFile.hpp"

#include <filesystem>
#include <string>

namespace mxl
{
    // The file's text. Throws FileReadError as readBoundedFile does, and with the reason "it has mode 0644: a key must be
    // readable by its owner only (chmod 600)" when group or others have any access.
    [[nodiscard]] std::string readSecretFile(std::filesystem::path const& path);
}
