// The config block of a new flow: common fields, default batch hints and how options override them.
#include "common/Status.hpp"
#include "flow/FlowDefinition.hpp"

#include <doctest/doctest.h>

#include <string>

namespace
{
    mxl::FlowDefinition const& video1080p()
    {
        static auto const definition = mxl::parseFlowDefinition(R"({
            "id": "5fbec3b1-1b0f-417d-9059-8b94a47197ed", "label": "Camera 1 Video", "format": "urn:x-nmos:format:video",
            "tags": {"urn:x-nmos:tag:grouphint/v1.0": ["Camera 1:Video"]}, "grain_rate": {"numerator": 30000, "denominator": 1001},
            "frame_width": 1920, "frame_height": 1080, "media_type": "video/v210a"})");
        return definition;
    }

    mxl::FlowDefinition const& audioStereo()
    {
        static auto const definition = mxl::parseFlowDefinition(R"({
            "id": "b3bb5be7-9fe9-4324-a5bb-4c70e1084449", "label": "Camera 1 Audio", "format": "urn:x-nmos:format:audio",
            "tags": {"urn:x-nmos:tag:grouphint/v1.0": ["Camera 1:Audio"]}, "sample_rate": {"numerator": 48000},
            "bit_depth": 32, "channel_count": 2})");
        return definition;
    }

    mxlFlowConfigInfo config(mxl::FlowDefinition const& definition, char const* options)
    {
        return mxl::makeFlowConfig(definition, mxl::parseFlowOptions(options), mxl::defaultHistoryDurationNs);
    }
}

TEST_CASE("flow config: a discrete flow")
{
    auto const info = config(video1080p(), nullptr);
    CHECK(std::equal(std::begin(info.common.id), std::end(info.common.id), video1080p().id.begin()));
    CHECK(info.common.format == MXL_DATA_FORMAT_VIDEO);
    CHECK(info.common.flags == 0);
    CHECK(info.common.grainRate.numerator == 30000);
    CHECK(info.common.grainRate.denominator == 1001);
    CHECK(info.common.payloadLocation == MXL_PAYLOAD_LOCATION_HOST_MEMORY);
    CHECK(info.common.deviceIndex == -1);
    CHECK(info.common.maxCommitBatchSizeHint == 1080);
    CHECK(info.common.maxSyncBatchSizeHint == 1080);
    CHECK(info.discrete.sliceSizes[0] == 5120);
    CHECK(info.discrete.sliceSizes[1] == 2560);
    CHECK(info.discrete.sliceSizes[2] == 0);
    CHECK(info.discrete.sliceSizes[3] == 0);
    CHECK(info.discrete.grainCount == 5);
}

TEST_CASE("flow config: a continuous flow")
{
    auto const info = config(audioStereo(), nullptr);
    CHECK(info.common.format == MXL_DATA_FORMAT_AUDIO);
    CHECK(info.common.grainRate.numerator == 48000);
    CHECK(info.common.deviceIndex == -1);
    CHECK(info.common.maxCommitBatchSizeHint == 480);
    CHECK(info.common.maxSyncBatchSizeHint == 480);
    CHECK(info.continuous.channelCount == 2);
    CHECK(info.continuous.bufferLength == 19456);
}

TEST_CASE("flow config: options override the batch hints (tests 19 and 24)")
{
    auto info = config(video1080p(), R"({"maxCommitBatchSizeHint": 5, "maxSyncBatchSizeHint": 10})");
    CHECK(info.common.maxCommitBatchSizeHint == 5);
    CHECK(info.common.maxSyncBatchSizeHint == 10);

    info = config(audioStereo(), R"({"maxCommitBatchSizeHint": 5, "maxSyncBatchSizeHint": 10})");
    CHECK(info.common.maxCommitBatchSizeHint == 5);
    CHECK(info.common.maxSyncBatchSizeHint == 10);
}

TEST_CASE("flow config: a hint given alone keeps sync a multiple of commit")
{
    // 1080 is a multiple of 5: sync keeps its default.
    auto info = config(video1080p(), R"({"maxCommitBatchSizeHint": 5})");
    CHECK(info.common.maxCommitBatchSizeHint == 5);
    CHECK(info.common.maxSyncBatchSizeHint == 1080);
    // 1080 is not a multiple of 7: every commit wakes readers.
    info = config(video1080p(), R"({"maxCommitBatchSizeHint": 7})");
    CHECK(info.common.maxCommitBatchSizeHint == 7);
    CHECK(info.common.maxSyncBatchSizeHint == 7);
    // 2160 is a multiple of 1080: commit keeps its default.
    info = config(video1080p(), R"({"maxSyncBatchSizeHint": 2160})");
    CHECK(info.common.maxCommitBatchSizeHint == 1080);
    CHECK(info.common.maxSyncBatchSizeHint == 2160);
    // 100 is not a multiple of 480: commit takes the sync value.
    info = config(audioStereo(), R"({"maxSyncBatchSizeHint": 100})");
    CHECK(info.common.maxCommitBatchSizeHint == 100);
    CHECK(info.common.maxSyncBatchSizeHint == 100);
}

TEST_CASE("flow config: the history duration sizes the rings")
{
    auto const options = mxl::parseFlowOptions(nullptr);
    CHECK(mxl::makeFlowConfig(video1080p(), options, 500'000'000).discrete.grainCount == 14);
    CHECK(mxl::makeFlowConfig(audioStereo(), options, 500'000'000).continuous.bufferLength == 48128);
}

TEST_CASE("flow config: device options put a discrete flow's payloads on the device")
{
    auto const info = config(video1080p(), R"({"payloadLocation": "device", "deviceIndex": 2})");
    CHECK(info.common.payloadLocation == MXL_PAYLOAD_LOCATION_DEVICE_MEMORY);
    CHECK(info.common.deviceIndex == 2);
    auto const host = config(video1080p(), R"({"payloadLocation": "host"})");
    CHECK(host.common.payloadLocation == MXL_PAYLOAD_LOCATION_HOST_MEMORY);
    CHECK(host.common.deviceIndex == -1);
}

TEST_CASE("flow config: an audio flow asked into device memory is refused")
{
    std::string message;
    auto status = MXL_STATUS_OK;
    try
    {
        static_cast<void>(config(audioStereo(), R"({"payloadLocation": "device", "deviceIndex": 0})"));
    }
    catch (mxl::Error const& e)
    {
        status = e.status();
        message = e.what();
    }
    CHECK(status == MXL_ERR_UNSUPPORTED_OPERATION);
    CHECK(message ==
          "flow b3bb5be7-9fe9-4324-a5bb-4c70e1084449 is an audio (continuous) flow and asks for payloads on CUDA device 0: only discrete "
          "(video, data) flows can be in device memory");
}
