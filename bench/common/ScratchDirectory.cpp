#include "ScratchDirectory.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

namespace mxl::bench
{
    ScratchDirectory::ScratchDirectory(std::string_view prefix)
    {
        auto path = fmt::format("/dev/shm/{}-XXXXXX", prefix);
        if (::mkdtemp(path.data()) == nullptr)
        {
            throw std::runtime_error{fmt::format("cannot create the directory {}: {}", path, std::strerror(errno))};
        }
        _path = path;
    }

    ScratchDirectory::~ScratchDirectory()
    {
        std::error_code ignored;
        std::filesystem::remove_all(_path, ignored);
    }

    std::filesystem::path ScratchDirectory::subdirectory(std::string_view name) const
    {
        auto const path = _path / name;
        std::error_code error;
        std::filesystem::create_directory(path, error);
        if (error)
        {
            throw std::runtime_error{fmt::format("cannot create the directory {}: {}", path.string(), error.message())};
        }
        return path;
    }
}
