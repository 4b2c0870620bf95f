#include "RegularFile.hpp"

#include "SystemError.hpp"

#include <fcntl.h>
#include <sys/stat.h>

namespace mxl
{
    namespace
    {
        char const* kindOf(mode_t mode) noexcept
        {
            if (S_ISFIFO(mode))
            {
                return "a FIFO";
            }
            if (S_ISCHR(mode) || S_ISBLK(mode))
            {
                return "a device";
            }
            if (S_ISDIR(mode))
            {
                return "a directory";
            }
            if (S_ISSOCK(mode))
            {
                return "a socket";
            }
            return "a special file";
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
