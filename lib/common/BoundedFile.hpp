// Files named in configurations, options and command lines are read only when they are regular files under a size
// limit: /dev/zero, a FIFO nobody writes or a multi-gigabyte log named by mistake must fail at once with a message,
// not block a service's start or exhaust its memory.
#pragma once

#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace mxl
{
    inline constexpr std::size_t defaultMaxFileBytes = 1024 * 1024;

    // Why a file was not read. what() is "'<path>': <reason>"; reason() alone is e.g. "No such file or directory", "it is
    // a character device, not a regular file" or "it is 5000000 bytes, more than the 1048576 accepted".
    class FileReadError : public std::runtime_error
    {
    public:
        FileReadError(std::filesystem::path const& path, std::string reason);

        [[nodiscard]] std::string const& reason() const noexcept
        {
            return _reason;
        }

    private:
        std::string _reason;
    };

    [[nodiscard]] std::string readBoundedFile(std::filesystem::path const& path, std::size_t maxBytes = defaultMaxFileBytes);
}
