// mxl-info --snapshot: a PNG of one grain of a video flow, or of the last second of an audio flow.
#pragma once

#include <client/MxlHandles.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mxl::tools::info
{
    struct PictureRequest
    {
        std::string flowId;
        // Video: the grain; audio: the last sample of the second pictured. Absent: the flow's head.
        std::optional<std::uint64_t> index;
        std::filesystem::path file;
    };

    // From the two values of --snapshot, "FLOW[@INDEX]" and "FILE.png"; throws ToolError(Usage) naming the bad one.
    PictureRequest parsePictureRequest(std::vector<std::string> const& values);

    // Reads the grain or samples (copied, then checked not to have been overwritten meanwhile), writes the picture and
    // prints what it shows. Throws ToolError: FlowNotFound, Usage for flows without pictures (data, colorspaces without
    // a matrix), Failure for grains that are missing, invalid or overwritten, and for files that cannot be written.
    void writeFlowPicture(client::Instance const& instance, std::filesystem::path const& domain, PictureRequest const& request);
}
