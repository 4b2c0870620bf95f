// Discrete (video/data) flows through the C API: writing, reading, windows, partial grains, blocking reads.
#include "FlowTestSupport.hpp"

#include <mxl/time.h>

#include <doctest/doctest.h>

#include <chrono>
#include <cstring>
#include <sys/stat.h>
#include <thread>

using namespace mxl::test;

namespace
{
    constexpr std::uint64_t noWait = 0;

    struct VideoFlow : DomainFixture
    {
        VideoFlow()
        {
            REQUIRE(instance != nullptr);
            REQUIRE(mxlCreateFlowWriter(instance, flowDefinition(videoFlowFile).c_str(), nullptr, &writer, &config, &created) ==
                    MXL_STATUS_OK);
            REQUIRE(mxlCreateFlowReader(instance, flowId(videoFlowFile).c_str(), nullptr, &reader) == MXL_STATUS_OK);
        }

        mxlFlowRuntimeInfo runtime() const
        {
            mxlFlowRuntimeInfo info;
            REQUIRE(mxlFlowReaderGetRuntimeInfo(reader, &info) == MXL_STATUS_OK);
            return info;
        }

        mxlStatus read(std::uint64_t index, std::uint16_t minSlices = MXL_GRAIN_VALID_SLICES_ALL, std::uint64_t timeoutNs = noWait)
        {
            return mxlFlowReaderGetGrainSlice(reader, index, minSlices, timeoutNs, &grain, &payload);
        }

        mxlFlowWriter writer = nullptr;
        mxlFlowReader reader = nullptr;
        mxlFlowConfigInfo config{};
        bool created = false;
        mxlGrainInfo grain{};
        std::uint8_t* payload = nullptr;
    };

    constexpr std::uint32_t v210LineBytes = 5120; // ceil(1920 / 48) * 128
    constexpr std::uint64_t discreteBase = 1'000'000;

    // The header of a grain of the 1080-line v210 flow, which the flow alone decides, with `validSlices` of its slices.
    void checkVideoGrainHeader(mxlGrainInfo const& grain, std::uint16_t validSlices)
    {
        CHECK(grain.version == 1);
        CHECK(grain.size == 4096);
        CHECK(grain.grainSize == v210LineBytes * 1080);
        CHECK(grain.totalSlices == 1080);
        CHECK(grain.validSlices == validSlices);
    }
}

TEST_CASE_FIXTURE(VideoFlow, "discrete: a written grain reads back byte for byte with its header")
{
    CHECK(created);
    CHECK(config.common.format == MXL_DATA_FORMAT_VIDEO);
    CHECK(config.discrete.sliceSizes[0] == v210LineBytes);
    CHECK(config.discrete.grainCount == 5);
    CHECK(runtime().headIndex == 0);
    auto const before = runtime().lastWriteTime;

    mxlGrainInfo info;
    std::uint8_t* writePayload = nullptr;
    REQUIRE(mxlFlowWriterOpenGrain(writer, discreteBase, &info, &writePayload) == MXL_STATUS_OK);
    CHECK(info.index == discreteBase);
    checkVideoGrainHeader(info, 0);
    CHECK(read(discreteBase) == MXL_ERR_OUT_OF_RANGE_TOO_EARLY);

    fillGrainPattern(writePayload, info.grainSize, discreteBase);
    info.validSlices = info.totalSlices;
    info.reserved[0] = 0xab;
    std::this_thread::sleep_for(std::chrono::milliseconds{2});
    REQUIRE(mxlFlowWriterCommitGrain(writer, &info) == MXL_STATUS_OK);

    REQUIRE(read(discreteBase) == MXL_STATUS_OK);
    CHECK(grain.index == discreteBase);
    CHECK(grain.validSlices == 1080);
    CHECK(grain.flags == 0);
    CHECK(grain.reserved[0] == 0xab);
    CHECK(fnv1a(payload, grain.grainSize) == grainPatternChecksum(grain.grainSize, discreteBase));
    CHECK(runtime().headIndex == discreteBase);
    CHECK(runtime().lastWriteTime > before);

    mxlFlowInfo flowInfo;
    REQUIRE(mxlFlowReaderGetInfo(reader, &flowInfo) == MXL_STATUS_OK);
    CHECK(flowInfo.version == 1);
    CHECK(flowInfo.size == 2048);
    CHECK(std::memcmp(&flowInfo.config, &config, sizeof config) == 0);
}

TEST_CASE_FIXTURE(VideoFlow, "discrete: the readable window is head-grainCount+2..head, the tail slot belongs to the writer")
{
    for (auto index = discreteBase; index < discreteBase + 10; ++index)
    {
        REQUIRE(writeGrain(writer, index) == MXL_STATUS_OK);
    }
    auto const head = discreteBase + 9;
    CHECK(read(head + 1) == MXL_ERR_OUT_OF_RANGE_TOO_EARLY);
    for (auto index = head - 3; index <= head; ++index)
    {
        REQUIRE(read(index) == MXL_STATUS_OK);
        CHECK(grain.index == index);
        CHECK(fnv1a(payload, grain.grainSize) == grainPatternChecksum(grain.grainSize, index));
    }
    CHECK(read(head - 4) == MXL_ERR_OUT_OF_RANGE_TOO_LATE);
    CHECK(read(head - 5) == MXL_ERR_OUT_OF_RANGE_TOO_LATE);
    CHECK(read(0) == MXL_ERR_OUT_OF_RANGE_TOO_LATE);
}

TEST_CASE_FIXTURE(VideoFlow, "discrete: a slot is checked against the requested index when the writer jumps")
{
    for (auto index = discreteBase; index < discreteBase + 5; ++index)
    {
        REQUIRE(writeGrain(writer, index) == MXL_STATUS_OK);
    }
    // Jump from base+4 to base+10: slots of base+7..base+9 still hold base+2..base+4.
    REQUIRE(writeGrain(writer, discreteBase + 10) == MXL_STATUS_OK);
    CHECK(read(discreteBase + 10) == MXL_STATUS_OK);
    CHECK(read(discreteBase + 8) == MXL_ERR_OUT_OF_RANGE_TOO_EARLY);
    CHECK(read(discreteBase + 9) == MXL_ERR_OUT_OF_RANGE_TOO_EARLY);

    // A slot already reopened for a newer grain is too late for the old index.
    mxlGrainInfo info;
    std::uint8_t* writePayload = nullptr;
    REQUIRE(mxlFlowWriterOpenGrain(writer, discreteBase + 12, &info, &writePayload) == MXL_STATUS_OK);
    CHECK(read(discreteBase + 7) == MXL_ERR_OUT_OF_RANGE_TOO_LATE);

    // The head never moves backwards.
    REQUIRE(mxlFlowWriterCancelGrain(writer) == MXL_STATUS_OK);
    REQUIRE(writeGrain(writer, discreteBase + 9) == MXL_STATUS_OK);
    CHECK(runtime().headIndex == discreteBase + 10);
    CHECK(read(discreteBase + 9) == MXL_STATUS_OK);
}

TEST_CASE_FIXTURE(VideoFlow, "discrete: partial commits are readable slice by slice")
{
    mxlGrainInfo info;
    std::uint8_t* writePayload = nullptr;
    REQUIRE(mxlFlowWriterOpenGrain(writer, discreteBase, &info, &writePayload) == MXL_STATUS_OK);
    fillGrainPattern(writePayload, info.grainSize, discreteBase);
    for (std::uint16_t slices = 270; slices <= 1080; slices = static_cast<std::uint16_t>(slices + 270))
    {
        info.validSlices = slices;
        REQUIRE(mxlFlowWriterCommitGrain(writer, &info) == MXL_STATUS_OK);
        REQUIRE(read(discreteBase, slices) == MXL_STATUS_OK);
        CHECK(grain.validSlices == slices);
        CHECK(read(discreteBase, static_cast<std::uint16_t>(slices + 1)) ==
              (slices == 1080 ? MXL_STATUS_OK : MXL_ERR_OUT_OF_RANGE_TOO_EARLY));
        CHECK(read(discreteBase) == (slices == 1080 ? MXL_STATUS_OK : MXL_ERR_OUT_OF_RANGE_TOO_EARLY));
        CHECK(read(discreteBase, MXL_GRAIN_VALID_SLICES_ANY) == MXL_STATUS_OK);
    }
    // Complete: the grain is closed, a further commit has nothing open.
    CHECK(mxlFlowWriterCommitGrain(writer, &info) == MXL_ERR_INVALID_ARG);
    CHECK(fnv1a(payload, grain.grainSize) == grainPatternChecksum(grain.grainSize, discreteBase));
}

TEST_CASE_FIXTURE(VideoFlow, "discrete: OpenGrain resets a recycled slot but continues a partial grain")
{
    mxlGrainInfo info;
    std::uint8_t* writePayload = nullptr;
    REQUIRE(writeGrain(writer, discreteBase, MXL_GRAIN_FLAG_INVALID) == MXL_STATUS_OK);
    REQUIRE(mxlFlowWriterOpenGrain(writer, discreteBase + 5, &info, &writePayload) == MXL_STATUS_OK);
    CHECK(info.index == discreteBase + 5);
    CHECK(info.validSlices == 0);
    CHECK(info.flags == 0);

    info.validSlices = 100;
    REQUIRE(mxlFlowWriterCommitGrain(writer, &info) == MXL_STATUS_OK);
    REQUIRE(mxlFlowWriterCancelGrain(writer) == MXL_STATUS_OK);
    REQUIRE(mxlFlowWriterOpenGrain(writer, discreteBase + 5, &info, &writePayload) == MXL_STATUS_OK);
    CHECK(info.validSlices == 100);

    mxlGrainInfo peek;
    REQUIRE(mxlFlowWriterGetGrainInfo(writer, discreteBase + 5, &peek) == MXL_STATUS_OK);
    CHECK(peek.validSlices == 100);
    CHECK(peek.index == discreteBase + 5);
}

TEST_CASE_FIXTURE(VideoFlow, "discrete: an invalid grain moves the ring and reads back flagged")
{
    mxlGrainInfo info;
    std::uint8_t* writePayload = nullptr;
    REQUIRE(mxlFlowWriterOpenGrain(writer, discreteBase, &info, &writePayload) == MXL_STATUS_OK);
    info.flags = MXL_GRAIN_FLAG_INVALID;
    info.validSlices = 0;
    REQUIRE(mxlFlowWriterCommitGrain(writer, &info) == MXL_STATUS_OK);
    REQUIRE(read(discreteBase) == MXL_STATUS_OK);
    CHECK(grain.flags == MXL_GRAIN_FLAG_INVALID);
    CHECK(grain.validSlices == 0);
    CHECK(runtime().headIndex == discreteBase);
}

TEST_CASE_FIXTURE(VideoFlow, "discrete: commits are checked and cannot corrupt the slot geometry")
{
    mxlGrainInfo info{};
    CHECK(mxlFlowWriterCommitGrain(writer, &info) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFlowWriterCommitGrain(writer, nullptr) == MXL_ERR_INVALID_ARG);
    std::uint8_t* writePayload = nullptr;
    REQUIRE(mxlFlowWriterOpenGrain(writer, discreteBase, &info, &writePayload) == MXL_STATUS_OK);
    auto wrong = info;
    wrong.index = discreteBase + 1;
    CHECK(mxlFlowWriterCommitGrain(writer, &wrong) == MXL_ERR_INVALID_ARG);

    info.version = 7;
    info.size = 1;
    info.grainSize = 3;
    info.totalSlices = 2;
    info.validSlices = 2;
    REQUIRE(mxlFlowWriterCommitGrain(writer, &info) == MXL_STATUS_OK);
    REQUIRE(read(discreteBase, 2) == MXL_STATUS_OK);
    checkVideoGrainHeader(grain, 2);
    CHECK(read(discreteBase) == MXL_ERR_OUT_OF_RANGE_TOO_EARLY);
}

TEST_CASE_FIXTURE(VideoFlow, "discrete: a blocked reader wakes on the commit and times out with TOO_EARLY")
{
    auto start = std::chrono::steady_clock::now();
    CHECK(read(discreteBase, MXL_GRAIN_VALID_SLICES_ALL, 30'000'000) == MXL_ERR_OUT_OF_RANGE_TOO_EARLY);
    auto const waited = std::chrono::steady_clock::now() - start;
    CHECK(waited >= std::chrono::milliseconds{30});
    CHECK(waited < std::chrono::milliseconds{500});

    // 2^63 and above means "do not wait".
    start = std::chrono::steady_clock::now();
    CHECK(read(discreteBase, MXL_GRAIN_VALID_SLICES_ALL, std::uint64_t{1} << 63) == MXL_ERR_OUT_OF_RANGE_TOO_EARLY);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::milliseconds{20});

    std::thread producer{[this]
                         {
                             std::this_thread::sleep_for(std::chrono::milliseconds{50});
                             REQUIRE(writeGrain(writer, discreteBase) == MXL_STATUS_OK);
                         }};
    start = std::chrono::steady_clock::now();
    auto const status = read(discreteBase, MXL_GRAIN_VALID_SLICES_ALL, 2'000'000'000);
    auto const woke = std::chrono::steady_clock::now() - start;
    producer.join();
    REQUIRE(status == MXL_STATUS_OK);
    CHECK(woke >= std::chrono::milliseconds{40});
    CHECK(woke < std::chrono::milliseconds{1000});
    CHECK(fnv1a(payload, grain.grainSize) == grainPatternChecksum(grain.grainSize, discreteBase));
}

TEST_CASE_FIXTURE(VideoFlow, "discrete: a sliced grain wakes a slice reader before it is complete")
{
    mxlGrainInfo info;
    std::uint8_t* writePayload = nullptr;
    REQUIRE(mxlFlowWriterOpenGrain(writer, discreteBase, &info, &writePayload) == MXL_STATUS_OK);
    std::thread producer{[&]
                         {
                             for (std::uint16_t slices = 108; slices <= 1080; slices = static_cast<std::uint16_t>(slices + 108))
                             {
                                 std::this_thread::sleep_for(std::chrono::milliseconds{5});
                                 info.validSlices = slices;
                                 REQUIRE(mxlFlowWriterCommitGrain(writer, &info) == MXL_STATUS_OK);
                             }
                         }};
    REQUIRE(read(discreteBase, 540, 2'000'000'000) == MXL_STATUS_OK);
    CHECK(grain.validSlices >= 540);
    REQUIRE(read(discreteBase, MXL_GRAIN_VALID_SLICES_ALL, 2'000'000'000) == MXL_STATUS_OK);
    CHECK(grain.validSlices == 1080);
    producer.join();
}

TEST_CASE_FIXTURE(VideoFlow, "discrete: lastReadTime follows successful reads")
{
    REQUIRE(writeGrain(writer, discreteBase) == MXL_STATUS_OK);
    auto const before = runtime().lastReadTime;
    std::this_thread::sleep_for(std::chrono::milliseconds{2});
    REQUIRE(read(discreteBase) == MXL_STATUS_OK);
    auto const deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds{500};
    while (runtime().lastReadTime == before && std::chrono::steady_clock::now() < deadline)
    {
        std::this_thread::sleep_for(std::chrono::milliseconds{1});
    }
    CHECK(runtime().lastReadTime > before);
    CHECK(runtime().lastReadTime <= mxlGetTime());
}

TEST_CASE_FIXTURE(VideoFlow, "discrete: a reader touches the access file on its first read, then at most every 100 ms")
{
    auto const access = domain.path() / (flowId(videoFlowFile) + ".mxl-flow") / "access";
    auto const accessTimeNs = [&]
    {
        struct stat status
        {
        };
        REQUIRE(::stat(access.c_str(), &status) == 0);
        return std::int64_t{status.st_atim.tv_sec} * 1'000'000'000 + status.st_atim.tv_nsec;
    };
    REQUIRE(writeGrain(writer, discreteBase) == MXL_STATUS_OK);
    auto const untouched = accessTimeNs();
    // tmpfs stamps with the coarse clock (one tick, up to 4 ms): every wait here spans several ticks.
    std::this_thread::sleep_for(std::chrono::milliseconds{20});
    auto const firstRead = std::chrono::steady_clock::now();
    REQUIRE(read(discreteBase) == MXL_STATUS_OK);
    auto const touched = accessTimeNs();
    CHECK(touched > untouched);

    // Four more reads over about 40 ms: a touch on each (the SDK's way) would move the atime.
    for (int i = 0; i < 4; ++i)
    {
        std::this_thread::sleep_for(std::chrono::milliseconds{10});
        REQUIRE(read(discreteBase) == MXL_STATUS_OK);
    }
    if (std::chrono::steady_clock::now() - firstRead < std::chrono::milliseconds{90})
    {
        CHECK(accessTimeNs() == touched);
    }
    else
    {
        MESSAGE("not checked: the reads took longer than the touch interval (a loaded machine)");
    }

    std::this_thread::sleep_for(std::chrono::milliseconds{150});
    REQUIRE(read(discreteBase) == MXL_STATUS_OK);
    CHECK(accessTimeNs() > touched);
}

TEST_CASE_FIXTURE(VideoFlow, "discrete: handles and arguments are checked")
{
    CHECK(mxlFlowReaderGetGrain(reader, discreteBase, 0, nullptr, &payload) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFlowReaderGetGrain(reader, discreteBase, 0, &grain, nullptr) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFlowReaderGetGrain(nullptr, discreteBase, 0, &grain, &payload) == MXL_ERR_INVALID_FLOW_READER);
    CHECK(mxlFlowReaderGetGrainNonBlocking(nullptr, discreteBase, &grain, &payload) == MXL_ERR_INVALID_FLOW_READER);
    CHECK(mxlFlowReaderGetInfo(reader, nullptr) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFlowReaderGetInfo(nullptr, nullptr) == MXL_ERR_INVALID_FLOW_READER);
    CHECK(mxlFlowWriterOpenGrain(nullptr, discreteBase, &grain, &payload) == MXL_ERR_INVALID_FLOW_WRITER);
    CHECK(mxlFlowWriterGetGrainInfo(writer, discreteBase, nullptr) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFlowWriterCancelGrain(nullptr) == MXL_ERR_INVALID_FLOW_WRITER);

    // A video handle is of the wrong kind for sample calls.
    mxlWrappedMultiBufferSlice slice;
    mxlMutableWrappedMultiBufferSlice mutableSlice;
    std::size_t length = 0;
    CHECK(mxlFlowReaderGetSamples(reader, discreteBase, 1, 0, &slice) == MXL_ERR_INVALID_FLOW_READER);
    CHECK(mxlFlowReaderGetMaxReadLengthSamples(reader, &length) == MXL_ERR_INVALID_FLOW_READER);
    CHECK(mxlFlowWriterOpenSamples(writer, discreteBase, 1, &mutableSlice) == MXL_ERR_INVALID_FLOW_WRITER);
    CHECK(mxlFlowWriterCommitSamples(writer) == MXL_ERR_INVALID_FLOW_WRITER);
}

TEST_CASE_FIXTURE(VideoFlow, "discrete: a reader of a deleted or re-created flow gets FLOW_INVALID")
{
    REQUIRE(writeGrain(writer, discreteBase) == MXL_STATUS_OK);
    REQUIRE(read(discreteBase) == MXL_STATUS_OK);
    REQUIRE(mxlReleaseFlowWriter(instance, writer) == MXL_STATUS_OK);
    CHECK(read(discreteBase + 1) == MXL_ERR_FLOW_INVALID);
    CHECK(read(discreteBase + 1, MXL_GRAIN_VALID_SLICES_ALL, 10'000'000) == MXL_ERR_FLOW_INVALID);

    REQUIRE(mxlCreateFlowWriter(instance, flowDefinition(videoFlowFile).c_str(), nullptr, &writer, nullptr, &created) == MXL_STATUS_OK);
    CHECK(created);
    CHECK(read(discreteBase + 1) == MXL_ERR_FLOW_INVALID);
}

TEST_CASE("discrete: data (smpte291) grains are 4096 bytes of one-byte slices")
{
    DomainFixture fixture;
    mxlFlowWriter writer = nullptr;
    mxlFlowConfigInfo config{};
    REQUIRE(mxlCreateFlowWriter(fixture.instance, flowDefinition(dataFlowFile).c_str(), nullptr, &writer, &config, nullptr) ==
            MXL_STATUS_OK);
    CHECK(config.common.format == MXL_DATA_FORMAT_DATA);
    CHECK(config.discrete.sliceSizes[0] == 1);
    CHECK(config.discrete.grainCount == 11);
    REQUIRE(writeGrain(writer, discreteBase) == MXL_STATUS_OK);
    mxlFlowReader reader = nullptr;
    REQUIRE(mxlCreateFlowReader(fixture.instance, flowId(dataFlowFile).c_str(), nullptr, &reader) == MXL_STATUS_OK);
    mxlGrainInfo grain;
    std::uint8_t* payload = nullptr;
    REQUIRE(mxlFlowReaderGetGrainNonBlocking(reader, discreteBase, &grain, &payload) == MXL_STATUS_OK);
    CHECK(grain.grainSize == 4096);
    CHECK(grain.totalSlices == 4096);
    CHECK(fnv1a(payload, 4096) == grainPatternChecksum(4096, discreteBase));
}
