#include "SecretFile.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <sys/stat.h>

namespace mxl
{
    std::string readSecretFile(std::filesystem::path const& path)
    {
        struct stat status
        {
        };
        if (::stat(path.c_str(), &status) != 0)
        {
            throw FileReadError{path, std::strerror(errno)};
        }
        if ((status.st_mode & (S_IRWXG | S_IRWXO)) != 0)
        {
            throw FileReadError{
                path, fmt::format("it has mode {:04o}: a key must be readable by its owner only (chmod 600)", status.st_mode & 07777)};
        }
        return readBoundedFile(path);
    }
}
