#include "TextFile.hpp"

#include "ClientError.hpp"

#include <common/BoundedFile.hpp>

#include <fmt/format.h>

namespace mxl::client
{
    std::string readTextFile(std::filesystem::path const& path, std::string_view what)
    {
        try
        {
            return readBoundedFile(path);
        }
        catch (FileReadError const& error)
        {
            throw ClientError{ErrorKind::Usage, fmt::format("cannot read the {} '{}': {}", what, path.string(), error.reason())};
        }
    }
}
