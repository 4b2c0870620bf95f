// Flow writer options (the `options` JSON of mxlCreateFlowWriter), parsed and combined with a video and an audio
// definition into batch hints as the writer does. Rejections are mxl::Error; accepted hints keep sync a multiple of
// commit.
#include "FuzzCheck.hpp"
#include "FuzzEntry.hpp"
#include "common/Status.hpp"
#include "flow/FlowDefinition.hpp"

#include <string>

namespace
{
    using mxl::fuzz::check;

    mxl::FlowDefinition const& videoDefinition()
    {
        static auto const definition = mxl::parseFlowDefinition(R"({"id": "5fbec3b1-1b0f-417d-9059-8b94a47197ed",
            "format": "urn:x-nmos:format:video", "grain_rate": {"numerator": 50}, "frame_width": 1920,
            "frame_height": 1080, "interlace_mode": "progressive", "media_type": "video/v210"})");
        return definition;
    }

    mxl::FlowDefinition const& audioDefinition()
    {
        static auto const definition = mxl::parseFlowDefinition(R"({"id": "b3bb5be7-9fe9-4324-a5bb-4c70e1084449",
            "format": "urn:x-nmos:format:audio", "sample_rate": {"numerator": 48000}, "media_type": "audio/float32",
            "bit_depth": 32, "channel_count": 2})");
        return definition;
    }

    void checkHints(mxl::FlowDefinition const& definition, mxl::FlowOptions const& options)
    {
        auto const config = mxl::makeFlowConfig(definition, options, mxl::defaultHistoryDurationNs);
        auto const commit = config.common.maxCommitBatchSizeHint;
        auto const sync = config.common.maxSyncBatchSizeHint;
        check(commit > 0 && sync > 0, "batch hints are positive");
        check(sync % commit == 0, "sync is a multiple of commit");
        check(!options.maxCommitBatchSizeHint || commit == *options.maxCommitBatchSizeHint, "a given commit hint is kept");
        check(!options.maxSyncBatchSizeHint || sync == *options.maxSyncBatchSizeHint, "a given sync hint is kept");
    }
}

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size)
{
    // The API takes a C string: an embedded NUL ends the options there.
    std::string const text{reinterpret_cast<char const*>(data), size};
    try
    {
        auto const options = mxl::parseFlowOptions(text.c_str());
        checkHints(videoDefinition(), options);
        checkHints(audioDefinition(), options);
    }
    catch (mxl::Error const& e)
    {
        check(e.status() == MXL_ERR_UNKNOWN, "options are rejected with MXL_ERR_UNKNOWN");
    }
    return 0;
}
