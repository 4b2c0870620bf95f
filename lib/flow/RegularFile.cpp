#include "RegularFile.hpp"

#include "SystemError.hpp"

#include <fcntl.h>
#include <sys/stat.h>

namespace mxl
{
    OpenedFile openRegularFile(std::filesystem::path const& path, int flags)
    {
        auto opened = openWithoutWaiting(path, flags);
        if (opened.fd.get() >= 0 && !S_ISREG(opened.status.st_mode))
        {
            fail(MXL_ERR_UNKNOWN,
                 "{} is {} rather than a regular file: not a flow's file (something other than an MXL writer put it there)", path.string(),
                 fileKind(opened.status.st_mode));
        }
        return opened;
    }
}
