// Opening a flow's own files. Every process of a domain can write into it, so one that is damaged or hostile can leave
// a FIFO or a device where a flow's data, grain or access file should be: open(2) of a FIFO waits for a writer, which
// would hold a reader's creation, or garbage collection, for ever. These files are opened without waiting, and
// anything but a regular file is refused.
#pragma once

#include "common/FileOpening.hpp"

#include <filesystem>

namespace mxl
{
    // `path` opened with `flags` without waiting, and its status; the descriptor is -1, with errno set, when open(2)
    // fails. Throws Error (MXL_ERR_UNKNOWN) naming the file when it is not a regular file.
    [[nodiscard]] OpenedFile openRegularFile(std::filesystem::path const& path, int flags);
}
