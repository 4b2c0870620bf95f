#include "TempDomain.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

namespace mxl::test
{
    TempDomain::TempDomain(std::string const& tag)
    {
        auto pattern = fmt::format("/dev/shm/mxl-{}-XXXXXX", tag);
        if (::mkdtemp(pattern.data()) == nullptr)
        {
            throw std::system_error{errno, std::generic_category(), "mkdtemp " + pattern};
        }
        _path = pattern;
    }

    TempDomain::~TempDomain()
    {
        std::error_code ignored;
        std::filesystem::permissions(_path, std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ignored);
        std::filesystem::remove_all(_path, ignored);
    }

    std::string writeSecretFile(std::filesystem::path const& path, std::string const& secret)
    {
        std::ofstream{path} << secret << '\n';
        std::filesystem::permissions(path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
        return path.string();
    }

    std::string readFile(std::filesystem::path const& path)
    {
        std::ifstream in{path, std::ios::binary};
        if (!in)
        {
            throw std::runtime_error{"cannot read " + path.string()};
        }
        std::ostringstream text;
        text << in.rdbuf();
        return text.str();
    }

    std::filesystem::path sourcePath(std::string const& relative)
    {
        return std::filesystem::path{MXL_SOURCE_DIR} / relative;
    }

    std::filesystem::path binaryPath(std::string const& relative)
    {
        return std::filesystem::path{MXL_BINARY_DIR} / relative;
    }
}
