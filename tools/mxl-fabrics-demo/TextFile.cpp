#include "TextFile.hpp"

#include <fstream>
#include <sstream>

namespace mxl::demo
{
    std::optional<std::string> readTextFile(std::string const& path)
    {
        std::ifstream in{path, std::ios::binary};
        if (!in)
        {
            return std::nullopt;
        }
        std::ostringstream text;
        text << in.rdbuf();
        if (in.bad())
        {
            return std::nullopt;
        }
        return text.str();
    }
}
