#include "BoundedFile.hpp"

#include "FileOpening.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace mxl
{
    FileReadError::FileReadError(std::filesystem::path const& path, std::string reason)
        : std::runtime_error{fmt::format("'{}': {}", path.string(), reason)}
        , _reason{std::move(reason)}
    {
    }

    std::string readBoundedFile(std::filesystem::path const& path, std::size_t maxBytes)
    {
        auto const [file, info] = openWithoutWaiting(path, O_RDONLY | O_CLOEXEC);
        if (file.get() < 0)
        {
            throw FileReadError{path, std::strerror(errno)};
        }
        if (!S_ISREG(info.st_mode))
        {
            throw FileReadError{path, fmt::format("it is {}, not a regular file", fileKind(info.st_mode))};
        }
        if (static_cast<std::uint64_t>(info.st_size) > maxBytes)
        {
            throw FileReadError{path, fmt::format("it is {} bytes, more than the {} accepted", info.st_size, maxBytes)};
        }
        // Read to the end rather than to st_size, and stop past the limit: the file may grow while it is read.
        std::string text;
        char buffer[16384];
        while (true)
        {
            auto const got = ::read(file.get(), buffer, sizeof buffer);
            if (got < 0 && errno == EINTR)
            {
                continue;
            }
            if (got < 0)
            {
                throw FileReadError{path, std::strerror(errno)};
            }
            if (got == 0)
            {
                return text;
            }
            text.append(buffer, static_cast<std::size_t>(got));
            if (text.size() > maxBytes)
            {
                throw FileReadError{path, fmt::format("it grew past the {} bytes accepted while it was read", maxBytes)};
            }
        }
    }
}
