// Reading the small text inputs of a program (flow definitions, options, tickets) with errors that name the file.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace mxl::client
{
    // The whole file, a regular file of at most 1 MiB; throws ClientError(Usage) naming `what` (e.g. "video flow
    // definition"), the path and the reason.
    std::string readTextFile(std::filesystem::path const& path, std::string_view what);
}
