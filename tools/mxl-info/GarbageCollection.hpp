// GC mode: removes the flows no writer holds any more (writers that crashed or were killed), and the status files of
// fabrics services whose process is gone, and says which.
#pragma once

#include <client/MxlHandles.hpp>

#include <filesystem>

namespace mxl::tools::info
{
    void collectGarbage(client::Instance const& instance, std::filesystem::path const& domain);
}
