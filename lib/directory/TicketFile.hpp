// Publishing a ticket in a file: written to a temporary file in the same directory and renamed over the old one, so a
// reader sees the old ticket or the new one, never half of either. Mode 0600: the ticket's rkeys grant write access
// to the flow's memory.
#pragma once

#include <filesystem>
#include <string_view>

namespace mxl::directory
{
    // Writes `text` as it is. Throws DirectoryError naming the path, the step and the reason.
    void writeTicketFile(std::filesystem::path const& path, std::string_view text);
}
