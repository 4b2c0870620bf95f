#include "MappedFile.hpp"

#include "RegularFile.hpp"
#include "SystemError.hpp"
#include "common/UniqueFd.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace mxl
{
    MappedFile::MappedFile(int fd, std::filesystem::path const& path, Access access, std::size_t sizeBytes)
        : _fd{fd}
        , _sizeBytes{sizeBytes}
    {
        if (access == Access::ReadWrite && ::flock(_fd, LOCK_SH | LOCK_NB) != 0)
        {
            auto const error = errno;
            release();
            if (error == EWOULDBLOCK)
            {
                // Only a deleting last writer or garbage collection holds a data file exclusively.
                fail(MXL_ERR_CONFLICT, "{} is locked exclusively (the flow is being deleted)", path.string());
            }
            failErrno(error, "flock(LOCK_SH) {}", path.string());
        }
        auto const protection = access == Access::ReadWrite ? PROT_READ | PROT_WRITE : PROT_READ;
        auto* const mapping = ::mmap(nullptr, _sizeBytes, protection, MAP_SHARED, _fd, 0);
        if (mapping == MAP_FAILED)
        {
            auto const error = errno;
            release();
            failErrno(error, "mmap {} ({} bytes)", path.string(), sizeBytes);
        }
        _bytes = static_cast<std::uint8_t*>(mapping);
    }

    MappedFile MappedFile::create(std::filesystem::path const& path, std::size_t sizeBytes)
    {
        UniqueFd fd{::open(path.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0664)};
        if (fd.get() < 0)
        {
            failErrno(errno, "create {}", path.string());
        }
        // posix_fallocate reserves tmpfs pages now, so a full /dev/shm fails here instead of with SIGBUS later.
        if (auto const error = ::posix_fallocate(fd.get(), 0, static_cast<off_t>(sizeBytes)); error != 0)
        {
            failErrno(error, "posix_fallocate {} ({} bytes)", path.string(), sizeBytes);
        }
        return MappedFile{fd.take(), path, Access::ReadWrite, sizeBytes};
    }

    MappedFile MappedFile::open(std::filesystem::path const& path, Access access, std::size_t minSizeBytes)
    {
        auto const flags = (access == Access::ReadWrite ? O_RDWR : O_RDONLY) | O_CLOEXEC;
        auto [fd, status] = openRegularFile(path, flags);
        if (fd.get() < 0)
        {
            failErrno(errno, "open {}", path.string());
        }
        // Checked before mapping: touching a mapping beyond the end of a truncated file raises SIGBUS.
        auto const sizeBytes = static_cast<std::size_t>(status.st_size);
        if (sizeBytes < minSizeBytes)
        {
            fail(MXL_ERR_UNKNOWN, "{} is {} bytes, expected at least {} (truncated flow file)", path.string(), sizeBytes, minSizeBytes);
        }
        return MappedFile{fd.take(), path, access, sizeBytes};
    }

    MappedFile::MappedFile(MappedFile&& other) noexcept
        : _fd{std::exchange(other._fd, -1)}
        , _bytes{std::exchange(other._bytes, nullptr)}
        , _sizeBytes{std::exchange(other._sizeBytes, 0)}
    {
    }

    MappedFile& MappedFile::operator=(MappedFile&& other) noexcept
    {
        if (this != &other)
        {
            release();
            _fd = std::exchange(other._fd, -1);
            _bytes = std::exchange(other._bytes, nullptr);
            _sizeBytes = std::exchange(other._sizeBytes, 0);
        }
        return *this;
    }

    MappedFile::~MappedFile()
    {
        release();
    }

    bool MappedFile::tryLockExclusive() noexcept
    {
        return _fd >= 0 && ::flock(_fd, LOCK_EX | LOCK_NB) == 0;
    }

    void MappedFile::release() noexcept
    {
        if (_bytes != nullptr)
        {
            ::munmap(_bytes, _sizeBytes);
            _bytes = nullptr;
        }
        if (_fd >= 0)
        {
            ::flock(_fd, LOCK_UN);
            ::close(_fd);
            _fd = -1;
        }
    }
}
