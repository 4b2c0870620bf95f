// Opening a file that another process may have replaced with a FIFO or a device: open(2) of a FIFO waits for a writer,
// and of some devices for the device. The file is opened without waiting, and its status says what it is, so that the
// caller refuses anything but a regular file before reading or mapping it.
#pragma once

#include "UniqueFd.hpp"

#include <sys/stat.h>

#include <filesystem>

namespace mxl
{
    struct OpenedFile
    {
        // -1, with errno set, when open(2) or fstat(2) failed.
        UniqueFd fd;
        struct stat status;
    };

    // `path` opened with `flags` and O_NONBLOCK | O_NOCTTY added (neither changes anything for a regular file).
    [[nodiscard]] OpenedFile openWithoutWaiting(std::filesystem::path const& path, int flags) noexcept;

    // What a file that is not a regular one is, in words: "a FIFO", "a directory", "a character device", ...
    [[nodiscard]] char const* fileKind(mode_t mode) noexcept;
}
