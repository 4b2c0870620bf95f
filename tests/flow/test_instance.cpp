// Instances through the C API: domain checks, per-instance handle caching, flow deletion by the last writer,
// mxlIsTmpFs, mxlIsFlowActive, mxlGetFlowDef, garbage collection and synchronization groups.
#include "FlowTestSupport.hpp"

#include "Domain.hpp"

#include <mxl/time.h>

#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sys/statfs.h>
#include <vector>

using namespace mxl::test;

namespace
{
    std::filesystem::path flowDirectory(DomainFixture const& fixture, char const* file)
    {
        return fixture.domain.path() / (flowId(file) + ".mxl-flow");
    }

    mxlFlowWriter createWriter(mxlInstance instance, char const* file, bool* created = nullptr, char const* options = nullptr)
    {
        mxlFlowWriter writer = nullptr;
        REQUIRE(mxlCreateFlowWriter(instance, flowDefinition(file).c_str(), options, &writer, nullptr, created) == MXL_STATUS_OK);
        return writer;
    }
}

TEST_CASE("instance: mxlIsTmpFs checks its arguments and tells tmpfs apart")
{
    bool isTmpFs = false;
    CHECK(mxlIsTmpFs(nullptr, &isTmpFs) == MXL_ERR_INVALID_ARG);
    CHECK(mxlIsTmpFs("/dev/shm", nullptr) == MXL_ERR_INVALID_ARG);
    CHECK(mxlIsTmpFs("/does/not/exist", &isTmpFs) != MXL_STATUS_OK);
    REQUIRE(mxlIsTmpFs("/dev/shm", &isTmpFs) == MXL_STATUS_OK);
    CHECK(isTmpFs);
    struct statfs root
    {
    };
    REQUIRE(::statfs("/", &root) == 0);
    REQUIRE(mxlIsTmpFs("/", &isTmpFs) == MXL_STATUS_OK);
    CHECK(isTmpFs == (root.f_type == 0x01021994 || root.f_type == static_cast<long>(0x858458f6)));
}

TEST_CASE("instance: a missing, NULL or non-directory domain gives no instance")
{
    CHECK(mxlCreateInstance(nullptr, nullptr) == nullptr);
    CHECK(mxlCreateInstance("/dev/shm/mxl-no-such-domain", nullptr) == nullptr);
    TempDomain domain;
    std::ofstream{domain.path() / "file"} << "x";
    CHECK(mxlCreateInstance((domain.path() / "file").c_str(), nullptr) == nullptr);
    CHECK(mxlDestroyInstance(nullptr) == MXL_ERR_INVALID_ARG);
    CHECK(mxlGarbageCollectFlows(nullptr) == MXL_ERR_INVALID_ARG);

    // Instance options are reserved: invalid JSON is logged and ignored.
    auto* const instance = mxlCreateInstance(domain.str().c_str(), "not json");
    REQUIRE(instance != nullptr);
    CHECK(mxlDestroyInstance(instance) == MXL_STATUS_OK);
}

TEST_CASE("instance: readers and writers are cached per flow id")
{
    DomainFixture fixture;
    auto* const audio = createWriter(fixture.instance, audioFlowFile);
    auto* const video = createWriter(fixture.instance, videoFlowFile);
    auto* const data = createWriter(fixture.instance, dataFlowFile);
    CHECK(audio != video);
    CHECK(video != data);
    bool created = true;
    CHECK(createWriter(fixture.instance, videoFlowFile, &created) == video);
    CHECK_FALSE(created);

    mxlFlowReader first = nullptr;
    mxlFlowReader second = nullptr;
    REQUIRE(mxlCreateFlowReader(fixture.instance, flowId(videoFlowFile).c_str(), nullptr, &first) == MXL_STATUS_OK);
    // Upper case and no hyphens name the same flow.
    auto id = flowId(videoFlowFile);
    std::erase(id, '-');
    std::transform(id.begin(), id.end(), id.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    REQUIRE(mxlCreateFlowReader(fixture.instance, id.c_str(), nullptr, &second) == MXL_STATUS_OK);
    CHECK(first == second);
    CHECK(static_cast<void*>(first) != static_cast<void*>(video));

    CHECK(mxlReleaseFlowReader(fixture.instance, first) == MXL_STATUS_OK);
    CHECK(mxlReleaseFlowReader(fixture.instance, second) == MXL_STATUS_OK);
    CHECK(mxlReleaseFlowReader(fixture.instance, second) == MXL_STATUS_OK);
    // Two references to the video writer: the first release keeps the flow.
    CHECK(mxlReleaseFlowWriter(fixture.instance, video) == MXL_STATUS_OK);
    CHECK(std::filesystem::exists(flowDirectory(fixture, videoFlowFile)));
    CHECK(mxlReleaseFlowWriter(fixture.instance, video) == MXL_STATUS_OK);
    CHECK_FALSE(std::filesystem::exists(flowDirectory(fixture, videoFlowFile)));
    CHECK(mxlReleaseFlowWriter(fixture.instance, video) == MXL_STATUS_OK);
    CHECK(mxlReleaseFlowWriter(nullptr, audio) == MXL_ERR_INVALID_ARG);
    CHECK(mxlReleaseFlowWriter(fixture.instance, nullptr) == MXL_ERR_INVALID_FLOW_WRITER);
    CHECK(mxlReleaseFlowReader(fixture.instance, nullptr) == MXL_ERR_INVALID_FLOW_READER);
}

TEST_CASE("instance: a flow is deleted when its last writer in any instance is released")
{
    DomainFixture a;
    auto* const b = mxlCreateInstance(a.domain.str().c_str(), nullptr);
    REQUIRE(b != nullptr);
    bool created = false;
    auto* const writerA = createWriter(a.instance, videoFlowFile, &created);
    CHECK(created);
    auto* const writerB = createWriter(b, videoFlowFile, &created);
    CHECK_FALSE(created);
    CHECK(writerA != writerB);

    SUBCASE("by release")
    {
        REQUIRE(mxlReleaseFlowWriter(a.instance, writerA) == MXL_STATUS_OK);
        CHECK(std::filesystem::exists(flowDirectory(a, videoFlowFile)));
        REQUIRE(mxlReleaseFlowWriter(b, writerB) == MXL_STATUS_OK);
        CHECK_FALSE(std::filesystem::exists(flowDirectory(a, videoFlowFile)));
        REQUIRE(mxlDestroyInstance(b) == MXL_STATUS_OK);
    }
    SUBCASE("by destroying the instances")
    {
        REQUIRE(mxlDestroyInstance(a.instance) == MXL_STATUS_OK);
        a.instance = nullptr;
        CHECK(std::filesystem::exists(flowDirectory(a, videoFlowFile)));
        REQUIRE(mxlDestroyInstance(b) == MXL_STATUS_OK);
        CHECK_FALSE(std::filesystem::exists(flowDirectory(a, videoFlowFile)));
    }
}

TEST_CASE("instance: definition and option errors are MXL_ERR_UNKNOWN, a kind clash too")
{
    DomainFixture fixture;
    mxlFlowWriter writer = nullptr;
    CHECK(mxlCreateFlowWriter(fixture.instance, "not json", nullptr, &writer, nullptr, nullptr) == MXL_ERR_UNKNOWN);
    CHECK(mxlCreateFlowWriter(fixture.instance, nullptr, nullptr, &writer, nullptr, nullptr) == MXL_ERR_INVALID_ARG);
    CHECK(mxlCreateFlowWriter(fixture.instance, flowDefinition(videoFlowFile).c_str(), nullptr, nullptr, nullptr, nullptr) ==
          MXL_ERR_INVALID_ARG);
    CHECK(mxlCreateFlowWriter(nullptr, flowDefinition(videoFlowFile).c_str(), nullptr, &writer, nullptr, nullptr) == MXL_ERR_INVALID_ARG);
    for (auto const* options : {R"({"maxCommitBatchSizeHint": 0})", R"({"maxSyncBatchSizeHint": -1})",
                                R"({"maxCommitBatchSizeHint": 5, "maxSyncBatchSizeHint": 6})", "[1]"})
    {
        CAPTURE(options);
        CHECK(mxlCreateFlowWriter(fixture.instance, flowDefinition(videoFlowFile).c_str(), options, &writer, nullptr, nullptr) ==
              MXL_ERR_UNKNOWN);
    }
    mxlFlowConfigInfo config{};
    REQUIRE(mxlCreateFlowWriter(fixture.instance, flowDefinition(videoFlowFile).c_str(),
                                R"({"maxCommitBatchSizeHint": 5, "maxSyncBatchSizeHint": 10})", &writer, &config,
                                nullptr) == MXL_STATUS_OK);
    CHECK(config.common.maxCommitBatchSizeHint == 5);
    CHECK(config.common.maxSyncBatchSizeHint == 10);

    // An audio definition reusing the video flow's id names an existing flow of the other kind.
    CHECK(mxlCreateFlowWriter(fixture.instance, flowDefinition(audioFlowFile, flowId(videoFlowFile)).c_str(), nullptr, &writer, nullptr,
                              nullptr) == MXL_ERR_UNKNOWN);
    auto* const other = mxlCreateInstance(fixture.domain.str().c_str(), nullptr);
    CHECK(mxlCreateFlowWriter(other, flowDefinition(audioFlowFile, flowId(videoFlowFile)).c_str(), nullptr, &writer, nullptr, nullptr) ==
          MXL_ERR_UNKNOWN);
    mxlDestroyInstance(other);
    CHECK(std::filesystem::exists(flowDirectory(fixture, videoFlowFile)));
}

TEST_CASE("instance: mxlIsFlowActive follows the writers' locks")
{
    DomainFixture fixture;
    auto* const writer = createWriter(fixture.instance, videoFlowFile);
    auto const id = flowId(videoFlowFile);
    bool active = false;
    REQUIRE(mxlIsFlowActive(fixture.instance, id.c_str(), &active) == MXL_STATUS_OK);
    CHECK(active);
    auto upper = id;
    std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    REQUIRE(mxlIsFlowActive(fixture.instance, upper.c_str(), &active) == MXL_STATUS_OK);
    CHECK(active);
    CHECK(mxlIsFlowActive(fixture.instance, "not-a-uuid", &active) == MXL_ERR_INVALID_ARG);
    CHECK(mxlIsFlowActive(fixture.instance, nullptr, &active) == MXL_ERR_INVALID_ARG);
    CHECK(mxlIsFlowActive(fixture.instance, id.c_str(), nullptr) == MXL_ERR_INVALID_ARG);
    CHECK(mxlIsFlowActive(nullptr, id.c_str(), &active) == MXL_ERR_INVALID_ARG);
    CHECK(mxlIsFlowActive(fixture.instance, flowId(audioFlowFile).c_str(), &active) == MXL_ERR_FLOW_NOT_FOUND);

    mxlFlowReader reader = nullptr;
    REQUIRE(mxlCreateFlowReader(fixture.instance, id.c_str(), nullptr, &reader) == MXL_STATUS_OK);
    REQUIRE(mxlReleaseFlowWriter(fixture.instance, writer) == MXL_STATUS_OK);
    CHECK(mxlIsFlowActive(fixture.instance, id.c_str(), &active) == MXL_ERR_FLOW_NOT_FOUND);
}

TEST_CASE("instance: mxlGetFlowDef returns the definition verbatim with the size protocol")
{
    DomainFixture fixture;
    auto const text = flowDefinition(videoFlowFile);
    mxlFlowWriter writer = nullptr;
    REQUIRE(mxlCreateFlowWriter(fixture.instance, text.c_str(), nullptr, &writer, nullptr, nullptr) == MXL_STATUS_OK);
    auto const id = flowId(videoFlowFile);
    std::string buffer(text.size() + 10, 'x');
    std::size_t size = 7;
    CHECK(mxlGetFlowDef(nullptr, id.c_str(), buffer.data(), &size) == MXL_ERR_INVALID_ARG);
    CHECK(mxlGetFlowDef(fixture.instance, nullptr, buffer.data(), &size) == MXL_ERR_INVALID_ARG);
    CHECK(mxlGetFlowDef(fixture.instance, "bad", buffer.data(), &size) == MXL_ERR_INVALID_ARG);
    CHECK(size == 7);
    CHECK(mxlGetFlowDef(fixture.instance, id.c_str(), buffer.data(), nullptr) == MXL_ERR_INVALID_ARG);
    CHECK(mxlGetFlowDef(fixture.instance, flowId(audioFlowFile).c_str(), buffer.data(), &size) == MXL_ERR_FLOW_NOT_FOUND);
    CHECK(mxlGetFlowDef(fixture.instance, id.c_str(), nullptr, &size) == MXL_ERR_INVALID_ARG);
    CHECK(size == text.size() + 1);
    size = text.size();
    CHECK(mxlGetFlowDef(fixture.instance, id.c_str(), buffer.data(), &size) == MXL_ERR_INVALID_ARG);
    CHECK(size == text.size() + 1);
    size = buffer.size();
    REQUIRE(mxlGetFlowDef(fixture.instance, id.c_str(), buffer.data(), &size) == MXL_STATUS_OK);
    CHECK(size == text.size() + 1);
    CHECK(std::string{buffer.c_str()} == text);
}

TEST_CASE("instance: garbage collection removes flows no writer holds, and only those")
{
    DomainFixture fixture;
    auto* const writer = createWriter(fixture.instance, videoFlowFile);
    // An audio flow whose writer vanished without releasing it: created, then its files (and lock) dropped.
    mxl::Domain domain{fixture.domain.path()};
    auto const text = flowDefinition(audioFlowFile);
    auto const definition = mxl::parseFlowDefinition(text);
    REQUIRE(domain.createOrOpenFlow(definition, text, mxl::makeFlowConfig(definition, {}, mxl::defaultHistoryDurationNs)).created);
    mxlFlowReader reader = nullptr;
    REQUIRE(mxlCreateFlowReader(fixture.instance, flowId(audioFlowFile).c_str(), nullptr, &reader) == MXL_STATUS_OK);
    bool active = true;
    REQUIRE(mxlIsFlowActive(fixture.instance, flowId(audioFlowFile).c_str(), &active) == MXL_STATUS_OK);
    CHECK_FALSE(active);

    std::filesystem::create_directory(fixture.domain.path() / ".mxl-tmp-leftover");
    std::filesystem::create_directory(fixture.domain.path() / "not-a-flow.mxl-flow");
    REQUIRE(mxlGarbageCollectFlows(fixture.instance) == MXL_STATUS_OK);
    CHECK(std::filesystem::exists(flowDirectory(fixture, videoFlowFile)));
    CHECK_FALSE(std::filesystem::exists(flowDirectory(fixture, audioFlowFile)));
    CHECK(std::filesystem::exists(fixture.domain.path() / ".mxl-tmp-leftover"));
    CHECK(std::filesystem::exists(fixture.domain.path() / "not-a-flow.mxl-flow"));
    CHECK(domain.listFlows() == std::vector<std::string>{flowId(videoFlowFile)});

    mxlWrappedMultiBufferSlice slice;
    CHECK(mxlFlowReaderGetSamplesNonBlocking(reader, 480, 480, &slice) == MXL_ERR_FLOW_INVALID);
    REQUIRE(mxlReleaseFlowWriter(fixture.instance, writer) == MXL_STATUS_OK);
    REQUIRE(mxlGarbageCollectFlows(fixture.instance) == MXL_STATUS_OK);
    CHECK(domain.listFlows().empty());
}

TEST_CASE("instance: synchronization groups wait for every member")
{
    DomainFixture fixture;
    auto* const video = createWriter(fixture.instance, videoFlowFile);
    auto* const audio = createWriter(fixture.instance, audioFlowFile);
    mxlFlowReader videoReader = nullptr;
    mxlFlowReader audioReader = nullptr;
    REQUIRE(mxlCreateFlowReader(fixture.instance, flowId(videoFlowFile).c_str(), nullptr, &videoReader) == MXL_STATUS_OK);
    REQUIRE(mxlCreateFlowReader(fixture.instance, flowId(audioFlowFile).c_str(), nullptr, &audioReader) == MXL_STATUS_OK);

    CHECK(mxlCreateFlowSynchronizationGroup(fixture.instance, nullptr) == MXL_ERR_INVALID_ARG);
    CHECK(mxlCreateFlowSynchronizationGroup(nullptr, nullptr) == MXL_ERR_INVALID_ARG);
    mxlFlowSynchronizationGroup group = nullptr;
    REQUIRE(mxlCreateFlowSynchronizationGroup(fixture.instance, &group) == MXL_STATUS_OK);
    CHECK(mxlFlowSynchronizationGroupWaitForDataAt(group, mxlGetTime(), 0) == MXL_STATUS_OK);
    CHECK(mxlFlowSynchronizationGroupAddReader(nullptr, videoReader) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFlowSynchronizationGroupAddReader(group, nullptr) == MXL_ERR_INVALID_FLOW_READER);
    CHECK(mxlFlowSynchronizationGroupAddPartialGrainReader(group, audioReader, 10) == MXL_ERR_INVALID_FLOW_READER);
    REQUIRE(mxlFlowSynchronizationGroupAddPartialGrainReader(group, videoReader, 540) == MXL_STATUS_OK);
    REQUIRE(mxlFlowSynchronizationGroupAddReader(group, audioReader) == MXL_STATUS_OK);

    mxlRational const videoRate{25, 1};
    mxlRational const audioRate{48000, 1};
    auto const videoIndex = std::uint64_t{1'000'000};
    auto const timestamp = mxlIndexToTimestamp(&videoRate, videoIndex);
    auto const audioIndex = mxlTimestampToIndex(&audioRate, timestamp);

    CHECK(mxlFlowSynchronizationGroupWaitForDataAt(group, timestamp, 5'000'000) == MXL_ERR_OUT_OF_RANGE_TOO_EARLY);
    // Half the video grain (the group asked for 540 slices) and the audio up to the timestamp.
    mxlGrainInfo grain;
    std::uint8_t* payload = nullptr;
    REQUIRE(mxlFlowWriterOpenGrain(video, videoIndex, &grain, &payload) == MXL_STATUS_OK);
    grain.validSlices = 540;
    REQUIRE(mxlFlowWriterCommitGrain(video, &grain) == MXL_STATUS_OK);
    CHECK(mxlFlowSynchronizationGroupWaitForDataAt(group, timestamp, 5'000'000) == MXL_ERR_OUT_OF_RANGE_TOO_EARLY);
    mxlMutableWrappedMultiBufferSlice slice;
    REQUIRE(mxlFlowWriterOpenSamples(audio, audioIndex, 480, &slice) == MXL_STATUS_OK);
    REQUIRE(mxlFlowWriterCommitSamples(audio) == MXL_STATUS_OK);
    CHECK(mxlFlowSynchronizationGroupWaitForDataAt(group, timestamp, 5'000'000) == MXL_STATUS_OK);
    CHECK(mxlFlowSynchronizationGroupWaitForDataAt(group, mxlIndexToTimestamp(&videoRate, videoIndex + 1), 0) ==
          MXL_ERR_OUT_OF_RANGE_TOO_EARLY);

    // Releasing a reader takes it out of the group.
    CHECK(mxlFlowSynchronizationGroupRemoveReader(group, audioReader) == MXL_STATUS_OK);
    CHECK(mxlFlowSynchronizationGroupRemoveReader(group, audioReader) == MXL_STATUS_OK);
    REQUIRE(mxlReleaseFlowReader(fixture.instance, videoReader) == MXL_STATUS_OK);
    CHECK(mxlFlowSynchronizationGroupWaitForDataAt(group, mxlIndexToTimestamp(&videoRate, videoIndex + 1), 0) == MXL_STATUS_OK);
    CHECK(mxlReleaseFlowSynchronizationGroup(fixture.instance, nullptr) == MXL_ERR_INVALID_ARG);
    CHECK(mxlReleaseFlowSynchronizationGroup(fixture.instance, group) == MXL_STATUS_OK);
}
