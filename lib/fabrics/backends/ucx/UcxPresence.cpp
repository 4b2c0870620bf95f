#include "fabrics/backends/ucx/UcxPresence.hpp"

#include "common/Status.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace mxl::fabrics::ucx
{
    namespace
    {
        std::string presencePath(std::vector<std::uint8_t> const& workerAddress)
        {
            std::uint64_t hash = 0xcbf29ce484222325ULL;
            for (auto const byte : workerAddress)
            {
                hash = (hash ^ byte) * 0x100000001b3ULL;
            }
            return fmt::format("/dev/shm/mxl-ucx-{:016x}", hash);
        }
    }

    PresenceFile::PresenceFile(std::vector<std::uint8_t> const& workerAddress)
        : _path{presencePath(workerAddress)}
        , _descriptor{::open(_path.c_str(), O_RDONLY | O_CREAT | O_CLOEXEC, 0644)}
    {
        if (_descriptor < 0)
        {
            fail(MXL_ERR_UNKNOWN, "ucx shm target: creating its presence file {}: {}", _path, std::strerror(errno));
        }
        if (::flock(_descriptor, LOCK_SH) != 0)
        {
            auto const error = errno;
            ::close(_descriptor);
            fail(MXL_ERR_UNKNOWN, "ucx shm target: locking its presence file {}: {}", _path, std::strerror(error));
        }
    }

    PresenceFile::~PresenceFile()
    {
        ::unlink(_path.c_str());
        ::close(_descriptor);
    }

    std::optional<std::string> absenceOf(std::vector<std::uint8_t> const& workerAddress)
    {
        auto const path = presencePath(workerAddress);
        auto const descriptor = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (descriptor < 0)
        {
            return fmt::format("the target is gone (its presence file {} is gone: {})", path, std::strerror(errno));
        }
        auto const held = ::flock(descriptor, LOCK_EX | LOCK_NB) != 0;
        if (!held)
        {
            // Left by a target that crashed: nobody will hold it again.
            ::unlink(path.c_str());
        }
        ::close(descriptor);
        return held ? std::nullopt : std::optional{fmt::format("the target is gone (nobody holds its presence file {})", path)};
    }
}
