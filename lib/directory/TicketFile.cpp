#include "TicketFile.hpp"

#include "DirectoryError.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace mxl::directory
{
    namespace
    {
        bool writeAll(int fd, std::string_view text)
        {
            while (!text.empty())
            {
                auto const n = ::write(fd, text.data(), text.size());
                if (n < 0 && errno == EINTR)
                {
                    continue;
                }
                if (n <= 0)
                {
                    return false;
                }
                text.remove_prefix(static_cast<std::size_t>(n));
            }
            return true;
        }
    }

    void writeTicketFile(std::filesystem::path const& path, std::string_view text)
    {
        auto const temporary = path.parent_path() / fmt::format(".{}.{}.tmp", path.filename().string(), ::getpid());
        auto const fail = [&](char const* step)
        {
            auto const reason = std::strerror(errno);
            ::unlink(temporary.c_str());
            throw DirectoryError{fmt::format("cannot publish the ticket file '{}': {} failed: {}", path.string(), step, reason)};
        };
        // A fresh file gets mode 0600 (a umask only removes bits), so the rkeys are never readable by others.
        ::unlink(temporary.c_str());
        auto const fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0)
        {
            fail("open");
        }
        // fsync before rename: after a power cut the name must not point at an empty file.
        bool const complete = writeAll(fd, text) && ::fsync(fd) == 0;
        auto const writeError = errno;
        ::close(fd);
        if (!complete)
        {
            errno = writeError;
            fail("write");
        }
        if (::rename(temporary.c_str(), path.c_str()) != 0)
        {
            fail("rename");
        }
    }
}
