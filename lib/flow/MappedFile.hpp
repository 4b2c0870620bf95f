// One file of a flow mapped into memory: the open descriptor, the mapping and the advisory lock, released together.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>

namespace mxl
{
    class MappedFile
    {
    public:
        enum class Access
        {
            // PROT_READ, no lock: readers work on read-only mounts and never keep a flow alive.
            ReadOnly,
            // PROT_READ|PROT_WRITE with a shared flock held until close: the flow has a live writer.
            ReadWrite,
        };

        MappedFile() = default;

        // Creates `path` (which must not exist) of exactly `sizeBytes` zero bytes, mapped read-write and share-locked.
        static MappedFile create(std::filesystem::path const& path, std::size_t sizeBytes);

        // Maps an existing file at its full size; fails cleanly when it is shorter than `minSizeBytes`.
        static MappedFile open(std::filesystem::path const& path, Access access, std::size_t minSizeBytes);

        MappedFile(MappedFile&& other) noexcept;
        MappedFile& operator=(MappedFile&& other) noexcept;
        MappedFile(MappedFile const&) = delete;
        MappedFile& operator=(MappedFile const&) = delete;
        ~MappedFile();

        // Converts the shared lock into an exclusive one without waiting: true when no other writer holds the file.
        // flock drops the shared lock before trying, so after `false` this handle holds no lock at all.
        bool tryLockExclusive() noexcept;

        [[nodiscard]] std::uint8_t* bytes() const noexcept
        {
            return _bytes;
        }

        [[nodiscard]] std::size_t sizeBytes() const noexcept
        {
            return _sizeBytes;
        }

        [[nodiscard]] int fd() const noexcept
        {
            return _fd;
        }

        template <typename T>
        [[nodiscard]] T* as() const noexcept
        {
            return reinterpret_cast<T*>(_bytes);
        }

    private:
        MappedFile(int fd, std::filesystem::path const& path, Access access, std::size_t sizeBytes);

        void release() noexcept;

        int _fd = -1;
        std::uint8_t* _bytes = nullptr;
        std::size_t _sizeBytes = 0;
    };
}
