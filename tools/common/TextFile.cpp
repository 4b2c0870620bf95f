#include "TextFile.hpp"

#include "ToolError.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace mxl::tools
{
    std::string readTextFile(std::filesystem::path const& path, std::string_view what)
    {
        std::ifstream file{path, std::ios::binary};
        if (!file)
        {
            throw ToolError{ExitCode::Usage, fmt::format("cannot read the {} '{}': {}", what, path.string(), std::strerror(errno))};
        }
        std::ostringstream text;
        text << file.rdbuf();
        return text.str();
    }
}
