#include "FileOpening.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

namespace mxl
{
    OpenedFile openWithoutWaiting(std::filesystem::path const& path, int flags) noexcept
    {
        UniqueFd fd{::open(path.c_str(), flags | O_NONBLOCK | O_NOCTTY)};
        struct stat status
        {
        };
        if (fd.get() >= 0 && ::fstat(fd.get(), &status) != 0)
        {
            auto const error = errno;
            ::close(fd.take());
            errno = error;
        }
        return OpenedFile{std::move(fd), status};
    }

    char const* fileKind(mode_t mode) noexcept
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
