// Whole small files (flow definitions, options, tickets) as text.
#pragma once

#include <optional>
#include <string>

namespace mxl::demo
{
    // nullopt when the file cannot be read; errno tells why.
    std::optional<std::string> readTextFile(std::string const& path);
}
