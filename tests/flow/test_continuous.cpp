// Continuous (audio) flows through the C API: ring geometry, inclusive-end ranges, the half-buffer rule, gaps, wakes.
#include "FlowTestSupport.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

using namespace mxl::test;

namespace
{
    struct AudioFlow : DomainFixture
    {
        AudioFlow()
        {
            REQUIRE(instance != nullptr);
            REQUIRE(mxlCreateFlowWriter(instance, flowDefinition(audioFlowFile).c_str(), nullptr, &writer, &config, nullptr) ==
                    MXL_STATUS_OK);
            REQUIRE(mxlCreateFlowReader(instance, flowId(audioFlowFile).c_str(), nullptr, &reader) == MXL_STATUS_OK);
        }

        std::uint64_t head() const
        {
            mxlFlowRuntimeInfo runtime;
            REQUIRE(mxlFlowReaderGetRuntimeInfo(reader, &runtime) == MXL_STATUS_OK);
            return runtime.headIndex;
        }

        // Writes the `count` samples ending at `index`, each holding its own sample index (plus 1 per channel) as u32.
        void writeIndices(std::uint64_t index, std::size_t count)
        {
            mxlMutableWrappedMultiBufferSlice slice;
            REQUIRE(mxlFlowWriterOpenSamples(writer, index, count, &slice) == MXL_STATUS_OK);
            for (std::size_t channel = 0; channel < slice.count; ++channel)
            {
                auto sample = index - count + 1;
                for (auto const& fragment : slice.base.fragments)
                {
                    auto* const words =
                        reinterpret_cast<std::uint32_t*>(static_cast<std::uint8_t*>(fragment.pointer) + channel * slice.stride);
                    for (std::size_t i = 0; i < fragment.size / 4; ++i)
                    {
                        words[i] = static_cast<std::uint32_t>(sample++ + channel);
                    }
                }
            }
            REQUIRE(mxlFlowWriterCommitSamples(writer) == MXL_STATUS_OK);
        }

        // The sample values of the range, channel by channel (an empty vector when the read fails).
        std::vector<std::uint32_t> readValues(std::uint64_t index, std::size_t count, std::uint64_t timeoutNs = 0)
        {
            mxlWrappedMultiBufferSlice slice;
            if (mxlFlowReaderGetSamples(reader, index, count, timeoutNs, &slice) != MXL_STATUS_OK)
            {
                return {};
            }
            std::vector<std::uint32_t> values;
            for (std::size_t channel = 0; channel < slice.count; ++channel)
            {
                for (auto const& fragment : slice.base.fragments)
                {
                    auto const* const words =
                        reinterpret_cast<std::uint32_t const*>(static_cast<std::uint8_t const*>(fragment.pointer) + channel * slice.stride);
                    values.insert(values.end(), words, words + fragment.size / 4);
                }
            }
            return values;
        }

        static std::vector<std::uint32_t> expectedValues(std::uint64_t index, std::size_t count, std::size_t channels = 2)
        {
            std::vector<std::uint32_t> values;
            for (std::size_t channel = 0; channel < channels; ++channel)
            {
                for (auto sample = index - count + 1; sample <= index; ++sample)
                {
                    values.push_back(static_cast<std::uint32_t>(sample + channel));
                }
            }
            return values;
        }

        mxlFlowWriter writer = nullptr;
        mxlFlowReader reader = nullptr;
        mxlFlowConfigInfo config{};
    };

    constexpr std::uint32_t bufferLength = 19456; // 48 kHz, 2 × 200 ms, rounded up to a page of float32
    constexpr std::uint64_t base = 48'000'000;
}

TEST_CASE_FIXTURE(AudioFlow, "continuous: geometry of a range, head, and the same bytes for the reader")
{
    CHECK(config.common.format == MXL_DATA_FORMAT_AUDIO);
    CHECK(config.continuous.channelCount == 2);
    CHECK(config.continuous.bufferLength == bufferLength);
    std::size_t maxLength = 0;
    REQUIRE(mxlFlowReaderGetMaxReadLengthSamples(reader, &maxLength) == MXL_STATUS_OK);
    CHECK(maxLength == bufferLength / 2);
    REQUIRE(mxlFlowWriterGetMaxWriteLengthSamples(writer, &maxLength) == MXL_STATUS_OK);
    CHECK(maxLength == bufferLength / 2);

    mxlMutableWrappedMultiBufferSlice slice;
    REQUIRE(mxlFlowWriterOpenSamples(writer, base, 64, &slice) == MXL_STATUS_OK);
    CHECK(slice.count == 2);
    CHECK(slice.stride == bufferLength * 4);
    CHECK(slice.base.fragments[0].size + slice.base.fragments[1].size == 256);
    // Sample s lives at ring position (s - 1) mod L: the range starts at (base - 64) mod L.
    mxlMutableWrappedMultiBufferSlice origin;
    REQUIRE(mxlFlowWriterOpenSamples(writer, 1, 1, &origin) == MXL_STATUS_OK);
    CHECK(static_cast<std::uint8_t*>(slice.base.fragments[0].pointer) - static_cast<std::uint8_t*>(origin.base.fragments[0].pointer) ==
          static_cast<std::ptrdiff_t>((base - 64) % bufferLength * 4));
    CHECK(head() == 0);
    CHECK(readValues(base, 64).empty());

    writeIndices(base, 64);
    CHECK(head() == base);
    CHECK(readValues(base, 64) == expectedValues(base, 64));
    CHECK(readValues(base - 10, 54) == expectedValues(base - 10, 54));

    REQUIRE(mxlReleaseFlowReader(instance, reader) == MXL_STATUS_OK);
    writeIndices(base + 64, 64);
    REQUIRE(mxlCreateFlowReader(instance, flowId(audioFlowFile).c_str(), nullptr, &reader) == MXL_STATUS_OK);
    CHECK(head() == base + 64);
}

TEST_CASE_FIXTURE(AudioFlow, "continuous: a range across the end of the ring comes in two fragments")
{
    auto const wrapIndex = (base / bufferLength + 1) * bufferLength + 10; // 10 samples past the ring's start
    writeIndices(wrapIndex - 100, 100);
    writeIndices(wrapIndex, 100);
    mxlWrappedMultiBufferSlice slice;
    REQUIRE(mxlFlowReaderGetSamplesNonBlocking(reader, wrapIndex, 30, &slice) == MXL_STATUS_OK);
    CHECK(slice.base.fragments[0].size == 20 * 4);
    CHECK(slice.base.fragments[1].size == 10 * 4);
    CHECK(readValues(wrapIndex, 30) == expectedValues(wrapIndex, 30));
}

TEST_CASE_FIXTURE(AudioFlow, "continuous: different writer and reader batch sizes see the same samples")
{
    auto const end = base + 12345;
    auto const quarter = bufferLength / 4;
    for (std::uint64_t batch = 0; batch < 4; ++batch)
    {
        writeIndices(end - (3 - batch) * quarter, quarter);
    }
    auto const half = bufferLength / 2;
    // The second half of what was written, once in the writer's batches and once in batches of 512 and the rest.
    for (auto const batchSize : {std::size_t{quarter}, std::size_t{512}, std::size_t{1000}})
    {
        std::vector<std::uint32_t> channel0;
        for (auto first = end - half + 1; first <= end; first += batchSize)
        {
            auto const count = std::min<std::size_t>(batchSize, end - first + 1);
            auto const values = readValues(first + count - 1, count);
            REQUIRE(values.size() == 2 * count);
            channel0.insert(channel0.end(), values.begin(), values.begin() + static_cast<std::ptrdiff_t>(count));
            CHECK(std::equal(values.begin() + static_cast<std::ptrdiff_t>(count), values.end(),
                             expectedValues(first + count - 1, count, 2).begin() + static_cast<std::ptrdiff_t>(count)));
        }
        CHECK(channel0 == expectedValues(end, half, 1));
    }
}

TEST_CASE_FIXTURE(AudioFlow, "continuous: only the half ring behind the head is readable")
{
    auto const half = bufferLength / 2;
    writeIndices(base, half);
    writeIndices(base + half, half);
    mxlWrappedMultiBufferSlice slice;
    auto const head = base + half;
    CHECK(mxlFlowReaderGetSamplesNonBlocking(reader, head + 1, 1, &slice) == MXL_ERR_OUT_OF_RANGE_TOO_EARLY);
    CHECK(mxlFlowReaderGetSamplesNonBlocking(reader, head, half, &slice) == MXL_STATUS_OK);
    CHECK(mxlFlowReaderGetSamplesNonBlocking(reader, head, half + 1, &slice) == MXL_ERR_OUT_OF_RANGE_TOO_LATE);
    CHECK(mxlFlowReaderGetSamplesNonBlocking(reader, head - 1, half, &slice) == MXL_ERR_OUT_OF_RANGE_TOO_LATE);
    CHECK(mxlFlowReaderGetSamplesNonBlocking(reader, head - 1, half - 1, &slice) == MXL_STATUS_OK);
    CHECK(mxlFlowReaderGetSamplesNonBlocking(reader, head, 0, &slice) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFlowReaderGetSamplesNonBlocking(reader, head, 1, nullptr) == MXL_ERR_INVALID_ARG);

    mxlMutableWrappedMultiBufferSlice mutableSlice;
    CHECK(mxlFlowWriterOpenSamples(writer, head + 1, half + 1, &mutableSlice) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFlowWriterOpenSamples(writer, head + 1, 0, &mutableSlice) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFlowWriterCommitSamples(writer) == MXL_ERR_INVALID_ARG);
    REQUIRE(mxlFlowWriterOpenSamples(writer, head + 1, 1, &mutableSlice) == MXL_STATUS_OK);
    REQUIRE(mxlFlowWriterCancelSamples(writer) == MXL_STATUS_OK);
    CHECK(mxlFlowWriterCommitSamples(writer) == MXL_ERR_INVALID_ARG);
    CHECK(this->head() == head);
}

TEST_CASE_FIXTURE(AudioFlow, "continuous: samples skipped by a jumping writer read as silence, not as an older lap")
{
    auto const half = bufferLength / 2;
    // Fill the whole ring once, so that stale values would be visible.
    writeIndices(base, half);
    writeIndices(base + half, half);
    auto const jumpTo = base + half + 1000;
    writeIndices(jumpTo, 100);
    // Channel 0 of the 1100 samples up to the new head: 100 old samples, the 900 skipped ones, the 100 new ones.
    auto const values = readValues(jumpTo, 1100);
    REQUIRE(values.size() == 2200);
    auto const zeros =
        std::count(values.begin() + 100, values.begin() + 1000, 0U) + std::count(values.begin() + 1200, values.begin() + 2100, 0U);
    CHECK(zeros == 1800);
    CHECK(readValues(jumpTo - 1000, 100) == expectedValues(jumpTo - 1000, 100));
    CHECK(readValues(jumpTo, 100) == expectedValues(jumpTo, 100));
}

TEST_CASE_FIXTURE(AudioFlow, "continuous: every committed batch wakes a blocked reader")
{
    constexpr std::uint64_t start = 1000;
    constexpr std::size_t batch = 480;
    constexpr int batches = 50;
    std::thread producer{[this]
                         {
                             for (int k = 0; k < batches; ++k)
                             {
                                 writeIndices(start + static_cast<std::uint64_t>(k) * batch, batch);
                                 std::this_thread::sleep_for(std::chrono::milliseconds{10});
                             }
                         }};
    int received = 0;
    for (int k = 0; k < batches; ++k)
    {
        auto const index = start + static_cast<std::uint64_t>(k) * batch;
        if (readValues(index, batch, 50'000'000) == expectedValues(index, batch))
        {
            ++received;
        }
    }
    producer.join();
    CHECK(received == batches);
}

TEST_CASE_FIXTURE(AudioFlow, "continuous: a reader of a deleted and re-created flow gets FLOW_INVALID")
{
    writeIndices(base, 64);
    REQUIRE(mxlReleaseFlowWriter(instance, writer) == MXL_STATUS_OK);
    REQUIRE(mxlCreateFlowWriter(instance, flowDefinition(audioFlowFile).c_str(), nullptr, &writer, nullptr, nullptr) == MXL_STATUS_OK);
    writeIndices(base + 64, 64);
    mxlWrappedMultiBufferSlice slice;
    CHECK(mxlFlowReaderGetSamplesNonBlocking(reader, base + 128, 64, &slice) == MXL_ERR_FLOW_INVALID);
}

TEST_CASE_FIXTURE(AudioFlow, "continuous: an audio handle is of the wrong kind for grain calls")
{
    mxlGrainInfo grain;
    std::uint8_t* payload = nullptr;
    CHECK(mxlFlowReaderGetGrain(reader, base, 0, &grain, &payload) == MXL_ERR_INVALID_FLOW_READER);
    CHECK(mxlFlowWriterOpenGrain(writer, base, &grain, &payload) == MXL_ERR_INVALID_FLOW_WRITER);
    CHECK(mxlFlowWriterGetGrainInfo(writer, base, &grain) == MXL_ERR_INVALID_FLOW_WRITER);
}
