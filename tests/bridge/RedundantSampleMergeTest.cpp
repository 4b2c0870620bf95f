// RedundantSampleMerge's rules on real audio flows: two path flows written here as a fabrics target would commit sample
// batches, and the real flow read back word by word. Each path writes its own tag into every word beside the channel
// and the sample index, so the real flow shows which path's copy of each sample was committed, and that it is the right
// sample of the right channel.
#include "bridge/RedundantSampleMerge.hpp"

#include "DomainFlow.hpp"

#include <mxl/flow.h>

#include <doctest/doctest.h>

#include <array>
#include <cstring>
#include <string>

using namespace mxl::bridge;
using mxl::test::readFile;
using mxl::test::sourcePath;

namespace
{
    constexpr char const* flowId = "2f906c74-8e3d-4b50-9ca2-3d4e5f607182";
    // Path tags in the words; 0 marks a zeroed (passed over) sample.
    constexpr std::array<std::uint32_t, 2> pathTag{1, 2};
    constexpr std::uint64_t batch = 480;
    // Sample indices as a live source's: far from 0.
    constexpr std::uint64_t start = 1'000'000'000;

    // Tag in the top byte, the channel in the next, the low 16 bits of the sample index below.
    std::uint32_t word(std::uint32_t tag, std::size_t channel, std::uint64_t index)
    {
        return tag << 24 | static_cast<std::uint32_t>(channel) << 16 | static_cast<std::uint32_t>(index & 0xFFFF);
    }

    // The test audio flow, its samples written and read back as tagged words.
    class AudioFlow : public mxl::test::DomainFlow
    {
    public:
        explicit AudioFlow(std::string const& tag)
            : DomainFlow{tag, readFile(sourcePath("tests/tools/data/audio_48k_2ch.json")), flowId}
        {
        }

        // Writes and commits the `count` samples ending at `headIndex`, every word tagged `tag`.
        void write(std::uint64_t headIndex, std::uint64_t count, std::uint32_t tag) const
        {
            mxlMutableWrappedMultiBufferSlice slice{};
            REQUIRE(::mxlFlowWriterOpenSamples(writer.get(), headIndex, count, &slice) == MXL_STATUS_OK);
            for (std::size_t channel = 0; channel < slice.count; ++channel)
            {
                auto index = headIndex - count + 1;
                for (auto const& fragment : slice.base.fragments)
                {
                    auto* const words = reinterpret_cast<std::uint8_t*>(fragment.pointer) + channel * slice.stride;
                    for (std::size_t offset = 0; offset < fragment.size; offset += sizeof(std::uint32_t), ++index)
                    {
                        auto const value = word(tag, channel, index);
                        std::memcpy(words + offset, &value, sizeof value);
                    }
                }
            }
            REQUIRE(::mxlFlowWriterCommitSamples(writer.get()) == MXL_STATUS_OK);
        }

        // The tag of every word of samples [first, last] in every channel when they all carry the same one and the right
        // channel and index; -1 when they differ or are wrong, -2 when the range is not readable.
        [[nodiscard]] int tagOf(std::uint64_t first, std::uint64_t last) const
        {
            mxlWrappedMultiBufferSlice slice{};
            if (::mxlFlowReaderGetSamplesNonBlocking(reader.get(), last, last - first + 1, &slice) != MXL_STATUS_OK)
            {
                return -2;
            }
            int tag = -3;
            for (std::size_t channel = 0; channel < slice.count; ++channel)
            {
                auto index = first;
                for (auto const& fragment : slice.base.fragments)
                {
                    auto const* const words = static_cast<std::uint8_t const*>(fragment.pointer) + channel * slice.stride;
                    for (std::size_t offset = 0; offset < fragment.size; offset += sizeof(std::uint32_t), ++index)
                    {
                        std::uint32_t value = 0;
                        std::memcpy(&value, words + offset, sizeof value);
                        auto const wordTag = static_cast<int>(value >> 24);
                        if ((tag != -3 && wordTag != tag) || (value != 0 && value != word(value >> 24, channel, index)))
                        {
                            return -1;
                        }
                        tag = wordTag;
                    }
                }
            }
            return tag;
        }

        [[nodiscard]] std::uint64_t head() const
        {
            mxlFlowRuntimeInfo runtime{};
            REQUIRE(::mxlFlowReaderGetRuntimeInfo(reader.get(), &runtime) == MXL_STATUS_OK);
            return runtime.headIndex;
        }

        std::uint64_t ringSamples = writer.config().continuous.bufferLength;
        std::size_t channels = writer.config().continuous.channelCount;
    };

    struct SampleFixture
    {
        AudioFlow real{"sample-merge-real"};
        std::array<AudioFlow, 2> paths{AudioFlow{"sample-merge-path1"}, AudioFlow{"sample-merge-path2"}};
        RedundantSampleMerge merge{real.writer.get(), {paths[0].reader.get(), paths[1].reader.get()}};

        // Path `path` commits batch `number` (batch samples from `start`) and hands its arrival to the merger; returns by
        // how much the real flow's head moved.
        std::uint64_t deliver(std::size_t path, std::uint64_t number)
        {
            auto const headIndex = start + (number + 1) * batch - 1;
            paths[path].write(headIndex, batch, pathTag[path]);
            return merge.arrived(path, mxlFabricsSamplesArrival{headIndex, batch});
        }

        // The tag the real flow holds for batch `number`.
        [[nodiscard]] int realTag(std::uint64_t number) const
        {
            return real.tagOf(start + number * batch, start + (number + 1) * batch - 1);
        }

        [[nodiscard]] PathCounters const& counters(std::size_t path) const
        {
            return merge.counters()[path];
        }
    };
}

TEST_CASE("redundant sample merge: the first path to deliver samples extends the real flow, the other's copy is late")
{
    SampleFixture fixture;
    for (std::uint64_t number = 0; number < 4; ++number)
    {
        CHECK(fixture.deliver(number % 2, number) == batch);
        CHECK(fixture.deliver(1 - number % 2, number) == 0);
    }
    fixture.merge.finish();
    CHECK(fixture.real.head() == start + 4 * batch - 1);
    for (std::uint64_t number = 0; number < 4; ++number)
    {
        CHECK(fixture.realTag(number) == static_cast<int>(pathTag[number % 2]));
    }
    for (std::size_t path = 0; path < 2; ++path)
    {
        CHECK(fixture.counters(path).first == 2 * batch);
        CHECK(fixture.counters(path).late == 2 * batch);
        CHECK(fixture.counters(path).missing == 0);
        CHECK(fixture.counters(path).dropped == 0);
    }
    CHECK(fixture.merge.skipped() == 0);
    CHECK(fixture.merge.copiedBytes() == 4 * batch * fixture.real.channels * sizeof(std::uint32_t));
}

TEST_CASE("redundant sample merge: a path that stops leaves the other serving every sample, and counts them missing")
{
    SampleFixture fixture;
    fixture.deliver(0, 0);
    fixture.deliver(1, 0);
    for (std::uint64_t number = 1; number < 10; ++number)
    {
        CHECK(fixture.deliver(1, number) == batch);
    }
    fixture.merge.finish();
    CHECK(fixture.real.head() == start + 10 * batch - 1);
    CHECK(fixture.realTag(0) == static_cast<int>(pathTag[0]));
    CHECK(fixture.real.tagOf(start + batch, start + 10 * batch - 1) == static_cast<int>(pathTag[1]));
    CHECK(fixture.counters(0).first == batch);
    CHECK(fixture.counters(0).missing == 9 * batch);
    CHECK(fixture.counters(1).first == 9 * batch);
    CHECK(fixture.counters(1).late == batch);
    CHECK(fixture.counters(1).missing == 0);
}

TEST_CASE("redundant sample merge: a batch one path lost is taken from the other, and the head waits for it")
{
    SampleFixture fixture;
    fixture.deliver(0, 0);
    fixture.deliver(0, 1);
    // Batch 2 never reaches path 1's flow: its batch 3 cannot extend the real flow while path 2 may still deliver 2.
    CHECK(fixture.deliver(0, 3) == 0);
    CHECK(fixture.real.head() == start + 2 * batch - 1);
    CHECK(fixture.deliver(1, 0) == 0);
    CHECK(fixture.deliver(1, 1) == 0);
    // Path 2's batch 2 fills the gap, and path 1's batch 3, already in its ring, follows in the same call.
    CHECK(fixture.deliver(1, 2) == 2 * batch);
    CHECK(fixture.deliver(1, 3) == 0);
    fixture.merge.finish();
    CHECK(fixture.real.head() == start + 4 * batch - 1);
    CHECK(fixture.realTag(0) == static_cast<int>(pathTag[0]));
    CHECK(fixture.realTag(1) == static_cast<int>(pathTag[0]));
    CHECK(fixture.realTag(2) == static_cast<int>(pathTag[1]));
    CHECK(fixture.realTag(3) == static_cast<int>(pathTag[0]));
    CHECK(fixture.counters(0).first == 3 * batch);
    CHECK(fixture.counters(0).missing == batch);
    CHECK(fixture.counters(0).late == 0);
    CHECK(fixture.counters(1).first == batch);
    CHECK(fixture.counters(1).late == 3 * batch);
    CHECK(fixture.counters(1).missing == 0);
    CHECK(fixture.merge.skipped() == 0);
}

TEST_CASE("redundant sample merge: samples no path delivered are passed over once both paths went past them, and zeroed")
{
    SampleFixture fixture;
    fixture.deliver(0, 0);
    fixture.deliver(1, 0);
    CHECK(fixture.deliver(0, 2) == 0);
    // Both paths went past batch 1: waiting longer gains nothing.
    CHECK(fixture.deliver(1, 2) == 2 * batch);
    fixture.merge.finish();
    CHECK(fixture.real.head() == start + 3 * batch - 1);
    CHECK(fixture.merge.skipped() == batch);
    CHECK(fixture.realTag(1) == 0);
    CHECK(fixture.realTag(2) == static_cast<int>(pathTag[0]));
    CHECK(fixture.counters(0).first == 2 * batch);
    CHECK(fixture.counters(1).late == 2 * batch);
    CHECK(fixture.counters(0).missing + fixture.counters(1).missing == 0);
}

TEST_CASE("redundant sample merge: with the other path silent, a gap is passed over once a path holds a quarter ring beyond it")
{
    SampleFixture fixture;
    auto const quarterBatches = fixture.paths[0].ringSamples / 4 / batch;
    fixture.deliver(0, 0);
    // Path 2 never delivers; path 1 loses batch 1 and goes on.
    std::uint64_t moved = 0;
    std::uint64_t number = 2;
    for (; number < 2 + quarterBatches + 2 && moved == 0; ++number)
    {
        moved = fixture.deliver(0, number);
    }
    INFO("ring ", fixture.paths[0].ringSamples, " samples, moved after batch ", number - 1);
    // The batch passed over and every batch from 2 on.
    CHECK(moved == (number - 1) * batch);
    CHECK(number - 2 >= quarterBatches);
    CHECK(fixture.merge.skipped() == batch);
    CHECK(fixture.realTag(1) == 0);
    CHECK(fixture.real.tagOf(start + 2 * batch, start + number * batch - 1) == static_cast<int>(pathTag[0]));
}

TEST_CASE("redundant sample merge: samples the path ring overwrote before the copy are dropped, never committed")
{
    SampleFixture fixture;
    fixture.deliver(0, 0);
    fixture.deliver(1, 0);
    // Path 1 commits a whole ring beyond batch 0 before the merger hears of batch 1: its ring no longer holds batch 1.
    auto const ringBatches = fixture.paths[0].ringSamples / batch + 1;
    for (std::uint64_t number = 1; number <= ringBatches; ++number)
    {
        fixture.paths[0].write(start + (number + 1) * batch - 1, batch, pathTag[0]);
    }
    CHECK(fixture.paths[0].tagOf(start + batch, start + 2 * batch - 1) == -2);
    CHECK(fixture.merge.arrived(0, mxlFabricsSamplesArrival{start + 2 * batch - 1, batch}) == 0);
    CHECK(fixture.counters(0).dropped == batch);
    CHECK(fixture.real.head() == start + batch - 1);
    // Path 2 still has it: its copy is committed.
    CHECK(fixture.deliver(1, 1) == batch);
    CHECK(fixture.realTag(1) == static_cast<int>(pathTag[1]));
    CHECK(fixture.counters(1).first == batch);
}

TEST_CASE("redundant sample merge: ranges across the end of the rings are copied whole, channel by channel")
{
    SampleFixture fixture;
    // Batches of 7 samples do not divide the ring, so some copies wrap in the path ring and the real one.
    constexpr std::uint64_t odd = 7;
    auto const total = fixture.paths[0].ringSamples + 5 * odd;
    std::uint64_t wrapped = 0;
    for (auto headIndex = start + odd - 1; headIndex < start + total; headIndex += odd)
    {
        fixture.paths[1].write(headIndex, odd, pathTag[1]);
        fixture.merge.arrived(1, mxlFabricsSamplesArrival{headIndex, odd});
        // Sample s lies at position (s - 1) mod ring: the range wraps when its last sample lies within its first odd - 1.
        wrapped += ((headIndex - 1) % fixture.paths[0].ringSamples) < odd - 1 ? 1 : 0;
        REQUIRE(fixture.real.head() == headIndex);
        REQUIRE(fixture.real.tagOf(headIndex - odd + 1, headIndex) == static_cast<int>(pathTag[1]));
    }
    CHECK(wrapped >= 1);
    CHECK(fixture.counters(1).first == (total / odd) * odd);
}
