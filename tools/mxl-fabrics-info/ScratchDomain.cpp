#include "ScratchDomain.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <system_error>
#include <unistd.h>

namespace mxl::fabricsinfo
{
    ScratchDomain::ScratchDomain()
    {
        char const* base = std::getenv("TMPDIR");
        _path = fmt::format("{}/mxl-fabrics-info.{}", base != nullptr && *base != '\0' ? base : "/tmp", ::getpid());
        std::error_code error;
        if (!std::filesystem::create_directory(_path, error))
        {
            throw std::runtime_error{
                fmt::format("cannot create the temporary domain '{}': {}", _path, error ? error.message() : "it already exists")};
        }
    }

    ScratchDomain::~ScratchDomain()
    {
        std::error_code ignored;
        std::filesystem::remove_all(_path, ignored);
    }
}
