#include "BoundedFile.hpp"

#include "UniqueFd.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mxl
{
    namespace
    {
        char const* kindOf(mode_t mode)
        {
            if (S_ISDIR(mode))
            {
                return "a directory";
            }
            if (S_ISCHR(mode))
            {
                return "a character device";
            }
            if (S_ISBLK(mode))
            {
                return "a block device";
            }
            if (S_ISFIFO(mode))
            {
                return "a FIFO";
            }
            return S_ISSOCK(mode) ? "a socket" : "not a plain file";
        }

    }

    FileReadError::FileReadError(std::filesystem::path const& path, std::string reason)
        : std::runtime_error{fmt::format("'{}': {}", path.string(), reason)}
        , _reason{std::move(reason)}
    {
    }

    std::string readBoundedFile(std::filesystem::path const& path, std::size_t maxBytes)
    {
        // O_NONBLOCK: opening a FIFO must not wait for a writer before the type check refuses it.
        UniqueFd file{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)};
        if (file.get() < 0)
        {
            throw FileReadError{path, std::strerror(errno)};
        }
        struct stat info
        {
        };
        if (::fstat(file.get(), &info) != 0)
        {
            throw FileReadError{path, std::strerror(errno)};
        }
        if (!S_ISREG(info.st_mode))
        {
            throw FileReadError{path, fmt::format("it is {}, not a regular file", kindOf(info.st_mode))};
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
