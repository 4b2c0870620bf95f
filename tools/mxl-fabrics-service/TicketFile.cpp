#include "TicketFile.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <unistd.h>

namespace mxl::service
{
    void writeTicketFile(std::filesystem::path const& path, std::string const& json)
    {
        auto const temporary = path.parent_path() / fmt::format(".{}.{}.tmp", path.filename().string(), ::getpid());
        auto const fail = [&](char const* step)
        {
            auto const reason = std::strerror(errno);
            ::unlink(temporary.c_str());
            throw std::runtime_error{fmt::format("cannot publish the ticket file '{}': {} failed: {}", path.string(), step, reason)};
        };
        auto const fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0)
        {
            fail("open");
        }
        auto const text = json + '\n';
        auto const written = ::write(fd, text.data(), text.size());
        // fsync before rename: after a power cut the name must not point at an empty file.
        bool const complete = written == static_cast<ssize_t>(text.size()) && ::fsync(fd) == 0;
        ::close(fd);
        if (!complete)
        {
            fail("write");
        }
        if (::rename(temporary.c_str(), path.c_str()) != 0)
        {
            fail("rename");
        }
    }
}
