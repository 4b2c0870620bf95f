#include "TextFile.hpp"

#include "ToolError.hpp"

#include <common/BoundedFile.hpp>

#include <fmt/format.h>

namespace mxl::tools
{
    std::string readTextFile(std::filesystem::path const& path, std::string_view what)
    {
        try
        {
            return readBoundedFile(path);
        }
        catch (FileReadError const& error)
        {
            throw ToolError{ErrorKind::Usage, fmt::format("cannot read the {} '{}': {}", what, path.string(), error.reason())};
        }
    }
}
