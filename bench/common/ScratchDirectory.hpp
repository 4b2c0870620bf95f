// A directory of its own under /dev/shm for one run of a bench: its flow domains (which must be on tmpfs) and whatever
// else the run writes (copies of flow definitions, the tools' stderr). Removed with everything in it when the object goes.
#pragma once

#include <filesystem>
#include <string_view>

namespace mxl::bench
{
    class ScratchDirectory
    {
    public:
        // /dev/shm/<prefix>-XXXXXX; throws naming the path when it cannot be created.
        explicit ScratchDirectory(std::string_view prefix);
        ~ScratchDirectory();

        ScratchDirectory(ScratchDirectory const&) = delete;
        ScratchDirectory& operator=(ScratchDirectory const&) = delete;

        [[nodiscard]] std::filesystem::path const& path() const noexcept
        {
            return _path;
        }

        // Creates the subdirectory `name` and returns its path.
        std::filesystem::path subdirectory(std::string_view name) const;

    private:
        std::filesystem::path _path;
    };
}
