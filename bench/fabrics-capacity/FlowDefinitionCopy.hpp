// Every flow of a capacity run needs an id of its own (two flows with one id would be one flow to the fabric and to
// the readers), but the same definition: each gets a copy of the repository's file with a fresh random UUID.
#pragma once

#include <filesystem>
#include <string>

namespace mxl::bench::capacity
{
    // Writes `definition` to `copy` with its "id" replaced by a new random (version 4) UUID, which it returns; throws
    // naming the file when it cannot be read, is not a JSON object, or the copy cannot be written.
    std::string writeFlowCopy(std::filesystem::path const& definition, std::filesystem::path const& copy);
}
