#include "RegularFile.hpp"

#include "SystemError.hpp"

#include <fcntl.h>
#include <sys/stat.h>

namespace mxl
{
    namespace
    {
        // What open(2) can give that is not a regular file: a socket is refused by open(2) itself (ENXIO).
        char const* kindOf(mode_t mode) noexcept
        {
            if (S_ISFIFO(mode))
            {
                return "a FIFO";
            }
            return S_ISDIR(mode) ? "a directory" : "a device";
        }
    }

    UniqueFd openRegularFile(std::filesystem::path const& path, int flags)
    {
        UniqueFd fd{::open(path.c_str(), flags | O_NONBLOCK | O_NOCTTY)};
        if (fd.get() < 0)
        {
            return fd;
        }
        struct stat status
        {
        };
        if (::fstat(fd.get(), &status) != 0)
        {
            failErrno(errno, "fstat {}", path.string());
        }
        if (!S_ISREG(status.st_mode))
        {
            fail(MXL_ERR_UNKNOWN,
                 "{} is {} rather than a regular file: not a flow's file (something other than an MXL writer put it there)", path.string(),
                 kindOf(status.st_mode));
        }
        return fd;
    }
}
