// Sample batches moved between a target and an initiator in one process over tcp and shm: every sample compared at the
// target through a flow reader, 2 and 16 channels, rings of different lengths at the two ends, transfers an entry
// cannot hold, bursts larger than the bounce buffer, and the calls of the other flavour.
#include "FabricsHarness.hpp"
#include "HostilePeer.hpp"
#include "Link.hpp"
#include "SamplePattern.hpp"
#include "Skip.hpp"
#include <client/LogCapture.hpp>

#include <mxl/fabrics_state.h>

#include <doctest/doctest.h>

#include <array>
#include <atomic>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <vector>

using namespace mxl::test;
using namespace mxl::test::fabrics;
using namespace std::chrono_literals;
using mxl::client::LogCapture;

namespace
{
    // tcp over 127.0.0.1 and shm.
    std::vector<Transport> audioTransports()
    {
        return {{"tcp", MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", "127.0.0.1"}, {"shm", MXL_FABRICS_PROVIDER_SHM, uniqueShmName("audio"), ""}};
    }

    constexpr std::size_t batch = 480;
    // A head index well past zero, as TAI-derived indices are.
    constexpr std::uint64_t firstHead = 1'000'000 * batch;

    struct ReadResult
    {
        mxlStatus status = MXL_ERR_NOT_READY;
        std::uint64_t headIndex = 0;
        std::size_t count = 0;
    };

    // A source and a target domain with the same audio flow, a set-up target and an initiator connected to it.
    struct AudioLink : LinkEnds
    {
        AudioLink(Transport const& transport, std::string const& flowFile, std::optional<std::uint64_t> sourceHistoryNs = std::nullopt,
                  std::optional<std::uint64_t> targetHistoryNs = std::nullopt, char const* targetOptions = nullptr)
            : LinkEnds{transport, flowFile, "audio", sourceHistoryNs, targetHistoryNs, FlowOptions{.targetSetup = targetOptions}}
        {
            REQUIRE(target.setupStatus == MXL_STATUS_OK);
            REQUIRE(mxlFabricsInitiatorAddTarget(initiator.initiator, target.ticket) == MXL_STATUS_OK);
            auto const deadline = std::chrono::steady_clock::now() + 5s;
            auto status = MXL_ERR_NOT_READY;
            while (status == MXL_ERR_NOT_READY && std::chrono::steady_clock::now() < deadline)
            {
                static_cast<void>(read(0ms));
                status = mxlFabricsInitiatorMakeProgressBlocking(initiator.initiator, 1);
            }
            REQUIRE(status == MXL_STATUS_OK);
        }

        ReadResult read(std::chrono::milliseconds timeout)
        {
            ReadResult result;
            result.status =
                mxlFabricsTargetReadSamples(target.target, static_cast<std::uint16_t>(timeout.count()), &result.headIndex, &result.count);
            return result;
        }

        // The next read that is not NOT_READY, driving the initiator meanwhile (one thread: single writes only); NOT_READY
        // after `timeout`.
        ReadResult receive(std::chrono::milliseconds timeout)
        {
            auto const deadline = std::chrono::steady_clock::now() + timeout;
            while (std::chrono::steady_clock::now() < deadline)
            {
                static_cast<void>(mxlFabricsInitiatorMakeProgressNonBlocking(initiator.initiator));
                auto const result = read(1ms);
                if (result.status != MXL_ERR_NOT_READY)
                {
                    return result;
                }
            }
            return {};
        }

        // Writes and moves `batches` batches one after the other, each completed before the next; every sample checked.
        void stream(std::uint64_t fromHead, std::size_t batches, std::uint32_t seed);
    };
}

namespace
{
    struct Outcome
    {
        std::size_t delivered = 0;
        std::size_t late = 0;
        std::size_t corrupt = 0;
        std::size_t outOfOrder = 0;
        // Batches the initiator announced lost: their source samples were overwritten before the target read them.
        std::size_t invalidated = 0;
        // Batches the initiator took before the posting deadline.
        std::size_t posted = 0;
        std::vector<std::uint64_t> heads;
        // Every posted batch was delivered, reported late by the target, or reported invalidated by the initiator.
        bool finished = false;
    };

    std::optional<std::string> hostilePeerCannotReach(AudioLink& link)
    {
        if (backendOf(link.targetDomain.fabrics) == "ofi")
        {
            return std::nullopt;
        }
        return "the hostile peer is a raw libfabric endpoint, which cannot reach a ucx target";
    }

    // Writes and posts `batches` batches from `fromHead` on, each completed at the initiator before the next when
    // `settleEach`, while the target reads in its own thread, starting `targetDelay` late (a slow consumer), and compares
    // every batch it delivers with the pattern. Its own thread because shm takes the next write to a peer only once the
    // peer's progress completed the previous one, as between processes. NOT_READY (transmit queue full) is posted again:
    // the imm-carrying write did not go out, so the target sees each batch at most once.
    Outcome runTransfers(AudioLink& link, std::uint64_t fromHead, std::size_t batches, std::uint32_t seed, bool settleEach,
                         std::chrono::milliseconds targetDelay)
    {
        Outcome outcome;
        std::atomic<bool> posting{true};
        // The initiator's count covers the link's life: only this run's losses count here (an earlier burst's too would end
        // the reader before this run's batches arrived).
        mxlFabricsTargetCounters before{};
        REQUIRE(mxlFabricsInitiatorGetTargetCounters(link.initiator.initiator, link.target.ticket, &before) == MXL_STATUS_OK);
        // Known once posting stopped: the initiator is driven by this thread only.
        std::atomic<std::size_t> invalidated{0};
        std::thread reader{
            [&]
            {
                std::this_thread::sleep_for(targetDelay);
                auto quietUntil = std::chrono::steady_clock::now() + 5s;
                std::uint64_t lastHead = 0;
                while (outcome.delivered + outcome.late + invalidated.load() < batches && std::chrono::steady_clock::now() < quietUntil)
                {
                    auto const arrived = link.read(1ms);
                    if (arrived.status == MXL_ERR_OUT_OF_RANGE_TOO_LATE)
                    {
                        ++outcome.late;
                    }
                    else if (arrived.status == MXL_STATUS_OK)
                    {
                        outcome.outOfOrder += arrived.headIndex <= lastHead || arrived.count != batch ? 1 : 0;
                        lastHead = arrived.headIndex;
                        outcome.heads.push_back(arrived.headIndex);
                        ++outcome.delivered;
                        outcome.corrupt += patternMismatches(link.destination.reader, arrived.headIndex, batch, seed).value_or(batch);
                    }
                    if (posting.load() || arrived.status != MXL_ERR_NOT_READY)
                    {
                        quietUntil = std::chrono::steady_clock::now() + 5s;
                    }
                }
            }};
        // Generous: 200 batches settled one by one take about 1 s here, and over UCX tcp (a round trip per write) under a
        // load average of 10 on this 2-vCPU class of machine up to 10 s.
        auto const deadline = std::chrono::steady_clock::now() + 30s;
        auto const settle = [&]
        {
            while (std::chrono::steady_clock::now() < deadline &&
                   mxlFabricsInitiatorMakeProgressBlocking(link.initiator.initiator, 10) == MXL_ERR_NOT_READY)
            {
            }
        };
        for (std::size_t i = 0; i < batches && std::chrono::steady_clock::now() < deadline; ++i)
        {
            auto const head = fromHead + i * batch;
            if (!writePatternSamples(link.source.writer, head, batch, seed))
            {
                break;
            }
            auto status = mxlFabricsInitiatorTransferSamples(link.initiator.initiator, head, batch);
            while (status == MXL_ERR_NOT_READY && std::chrono::steady_clock::now() < deadline)
            {
                static_cast<void>(mxlFabricsInitiatorMakeProgressNonBlocking(link.initiator.initiator));
                status = mxlFabricsInitiatorTransferSamples(link.initiator.initiator, head, batch);
            }
            outcome.posted += status == MXL_STATUS_OK ? 1 : 0;
            if (settleEach)
            {
                settle();
            }
        }
        settle();
        mxlFabricsTargetCounters counters{};
        REQUIRE(mxlFabricsInitiatorGetTargetCounters(link.initiator.initiator, link.target.ticket, &counters) == MXL_STATUS_OK);
        invalidated = counters.transfersInvalidated - before.transfersInvalidated;
        posting = false;
        reader.join();
        outcome.invalidated = invalidated.load();
        outcome.finished = outcome.delivered + outcome.late + outcome.invalidated == batches;
        return outcome;
    }

    void AudioLink::stream(std::uint64_t fromHead, std::size_t batches, std::uint32_t seed)
    {
        auto const outcome = runTransfers(*this, fromHead, batches, seed, true, 0ms);
        CHECK(outcome.posted == batches);
        CHECK(outcome.finished);
        CHECK(outcome.delivered == batches);
        CHECK(outcome.late == 0);
        CHECK(outcome.corrupt == 0);
        CHECK(outcome.outOfOrder == 0);
        std::vector<std::uint64_t> expected(batches);
        for (std::size_t i = 0; i < batches; ++i)
        {
            expected[i] = fromHead + i * batch;
        }
        CHECK(outcome.heads == expected);
    }
}

TEST_CASE("sample batches arrive intact: 2 and 16 channels over tcp and shm")
{
    for (auto const& transport : audioTransports())
    {
        for (auto const* flowFile : {"audio_48k_stereo.json", "audio_48k_16ch.json"})
        {
            INFO(transport.label);
            AudioLink link{transport, flowFile};
            // Two seconds' worth, wrapping both 19456-sample rings several times.
            link.stream(firstHead, 200, 3);
            // The ticket describes the bounce buffer.
            CHECK(ticketText(link.target.ticket).find("\"bounceBufferInfo\":{\"entryCount\":\"41\"") != std::string::npos);
        }
    }
}

TEST_CASE("rings of different lengths at the two ends")
{
    // 100 ms of history makes a 10240-sample ring, 1 s a 96256-sample ring: batches wrap at different places.
    for (auto const& transport : audioTransports())
    {
        INFO(transport.label);
        {
            INFO("short source, long target");
            AudioLink link{transport, "audio_48k_16ch.json", 100'000'000, 1'000'000'000};
            link.stream(firstHead + 7, 120, 11);
        }
        {
            INFO("long source, short target");
            AudioLink link{transport, "audio_48k_stereo.json", 1'000'000'000, 100'000'000};
            link.stream(firstHead + 13, 120, 12);
        }
    }
}

TEST_CASE("samples asked for before the source's first write arrive as silence, and the samples written later as written")
{
    // The MXL SDK's own tests move samples 1..480 of a flow nobody has written yet, and wait for them at the target.
    for (auto const& transport : audioTransports())
    {
        INFO(transport.label);
        AudioLink link{transport, "audio_48k_stereo.json"};
        // The target's ring held other samples there: silence must replace them, not leave them.
        REQUIRE(writePatternSamples(link.destination.writer, batch, batch, 21));
        REQUIRE(nonSilentWords(link.destination.reader, batch, batch).value_or(0) > batch);

        REQUIRE(mxlFabricsInitiatorTransferSamples(link.initiator.initiator, batch, batch) == MXL_STATUS_OK);
        auto const arrived = link.receive(5s);
        CHECK(arrived.status == MXL_STATUS_OK);
        CHECK(arrived.headIndex == batch);
        CHECK(arrived.count == batch);
        CHECK(nonSilentWords(link.destination.reader, batch, batch) == std::optional<std::size_t>{0});
        mxlFabricsTargetCounters counters{};
        REQUIRE(mxlFabricsInitiatorGetTargetCounters(link.initiator.initiator, link.target.ticket, &counters) == MXL_STATUS_OK);
        CHECK(counters.transfersInvalidated == 0);

        link.stream(firstHead, 4, 22);
    }
}

TEST_CASE("a transfer that a bounce-buffer entry cannot hold is refused and writes nothing")
{
    for (auto const& transport : audioTransports())
    {
        INFO(transport.label);
        AudioLink link{transport, "audio_48k_stereo.json"};
        REQUIRE(writePatternSamples(link.source.writer, firstHead + 2 * batch, 2 * batch, 5));
        CHECK(mxlFabricsInitiatorTransferSamples(link.initiator.initiator, firstHead + 2 * batch, batch + 1) == MXL_ERR_INVALID_ARG);
        CHECK(mxlFabricsInitiatorTransferSamples(link.initiator.initiator, firstHead + 2 * batch, 0) == MXL_ERR_INVALID_ARG);
        CHECK(link.receive(300ms).status == MXL_ERR_NOT_READY);
        // The link still works afterwards, with the same entry.
        link.stream(firstHead + 3 * batch, 3, 5);
    }
}

TEST_CASE("a burst larger than the bounce buffer: late batches are reported, never a stall or a mixed batch")
{
    for (auto const& transport : audioTransports())
    {
        INFO(transport.label);
        AudioLink link{transport, "audio_48k_stereo.json"};
        // Twice the 41 entries and then some.
        constexpr std::size_t burst = 87;
        auto const outcome = runTransfers(link, firstHead, burst, 21, false, 300ms);
        MESSAGE(transport.label << ": " << outcome.delivered << " of " << burst << " batches delivered, " << outcome.late
                                << " reported late, " << outcome.invalidated << " announced lost by the initiator");
        CHECK(outcome.finished);
        CHECK(outcome.corrupt == 0);
        CHECK(outcome.outOfOrder == 0);
        CHECK(outcome.delivered >= 1);
        REQUIRE(!outcome.heads.empty());
        CHECK(outcome.heads.back() == firstHead + (burst - 1) * batch);
        // Nothing more is queued, and the next batches go through.
        CHECK(link.receive(100ms).status == MXL_ERR_NOT_READY);
        link.stream(firstHead + burst * batch, 2, 21);
    }
}

TEST_CASE("a burst larger than the target's completion queue loses nothing")
{
    for (auto const& transport : audioTransports())
    {
        INFO(transport.label);
        AudioLink link{transport, "audio_48k_16ch.json", std::nullopt, std::nullopt, R"({"cqDepth": 4})"};
        // Fewer than the 41 entries, four times the completion queue.
        constexpr std::size_t burst = 16;
        auto const outcome = runTransfers(link, firstHead, burst, 31, false, 200ms);
        CHECK(outcome.finished);
        CHECK(outcome.delivered == burst);
        CHECK(outcome.late == 0);
        CHECK(outcome.corrupt == 0);
        CHECK(outcome.outOfOrder == 0);
    }
}

TEST_CASE("grain calls on sample ends and sample tickets on grain initiators are refused")
{
    auto const transport = audioTransports().front();
    AudioLink link{transport, "audio_48k_stereo.json"};
    std::uint64_t index = 0;
    CHECK(mxlFabricsTargetReadGrainNonBlocking(link.target.target, &index) == MXL_ERR_INVALID_STATE);
    CHECK(mxlFabricsInitiatorTransferGrain(link.initiator.initiator, 0, 0, 1) == MXL_ERR_INVALID_STATE);

    FlowDomain videoDomain{"audio-video"};
    Flow video{videoDomain, flowDefinition("v210_1080p25.json")};
    InitiatorEnd videoInitiator{videoDomain, video, interfaceConfig(MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", nullptr)};
    CHECK(mxlFabricsInitiatorAddTarget(videoInitiator.initiator, link.target.ticket) == MXL_ERR_INVALID_ARG);
    TargetEnd videoTarget{videoDomain, video, interfaceConfig(MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", nullptr)};
    REQUIRE(videoTarget.setupStatus == MXL_STATUS_OK);
    CHECK(mxlFabricsInitiatorAddTarget(link.initiator.initiator, videoTarget.ticket) == MXL_ERR_INVALID_ARG);
    std::size_t count = 0;
    CHECK(mxlFabricsTargetReadSamplesNonBlocking(videoTarget.target, &index, &count) == MXL_ERR_INVALID_STATE);
}

TEST_CASE("read safety: a batch whose source samples are overwritten before the target read them is never committed")
{
    for (auto const& transport : audioTransports())
    {
        INFO(transport.label);
        AudioLink link{transport, "audio_48k_stereo.json"};
        auto const ring = link.source.config.continuous.bufferLength;
        REQUIRE(writePatternSamples(link.source.writer, firstHead, batch, 3));
        REQUIRE(mxlFabricsInitiatorTransferSamples(link.initiator.initiator, firstHead, batch) == MXL_STATUS_OK);
        // The writer goes a whole ring on before the target has read anything: shm copies the batch only then.
        auto head = firstHead;
        while (head < firstHead + ring)
        {
            head += batch;
            REQUIRE(writePatternSamples(link.source.writer, head, batch, 4));
        }
        auto const arrived = link.receive(2s);
        mxlFabricsTargetCounters counters{};
        REQUIRE(mxlFabricsInitiatorGetTargetCounters(link.initiator.initiator, link.target.ticket, &counters) == MXL_STATUS_OK);
        if (arrived.status == MXL_STATUS_OK)
        {
            // tcp had copied the batch into its socket before the writer came round: it must be the original.
            CHECK(transport.provider == MXL_FABRICS_PROVIDER_TCP);
            CHECK(arrived.headIndex == firstHead);
            CHECK(patternMismatches(link.destination.reader, firstHead, batch, 3) == std::optional<std::size_t>{0});
            CHECK(counters.transfersInvalidated == 0);
        }
        else
        {
            CHECK(arrived.status == MXL_ERR_NOT_READY);
            CHECK(counters.transfersInvalidated == 1);
        }
        MESSAGE(transport.label << ": the overwritten batch was "
                                << std::string{arrived.status == MXL_STATUS_OK ? "read in time" : "announced lost"});

        // The next batch goes through intact.
        head += batch;
        REQUIRE(writePatternSamples(link.source.writer, head, batch, 5));
        REQUIRE(mxlFabricsInitiatorTransferSamples(link.initiator.initiator, head, batch) == MXL_STATUS_OK);
        auto const next = link.receive(5s);
        REQUIRE(next.status == MXL_STATUS_OK);
        CHECK(next.headIndex == head);
        CHECK(patternMismatches(link.destination.reader, head, batch, 5) == std::optional<std::size_t>{0});
    }
}

TEST_CASE("hostile peer: an entry index beyond the bounce buffer and an entry claiming too many samples are skipped, logged once, and "
          "the honest initiator beside it is served")
{
    for (auto const& transport : audioTransports())
    {
        INFO(transport.label);
        AudioLink link{transport, "audio_48k_stereo.json"};
        MXL_SKIP_IF(hostilePeerCannotReach(link));
        link.stream(firstHead, 2, 21);
        auto const drive = [&]
        {
            std::uint64_t head = 0;
            std::size_t count = 0;
            static_cast<void>(mxlFabricsTargetReadSamplesNonBlocking(link.target.target, &head, &count));
        };
        LogCapture capture;
        mxl::test::fabrics::HostilePeer peer{link.target.ticket, drive};
        auto const entries = static_cast<std::uint32_t>(peer.ticket().bounceBuffer->entryCount);
        auto const headBefore = [&]
        {
            mxlFlowRuntimeInfo runtime{};
            REQUIRE(mxlFlowReaderGetRuntimeInfo(link.destination.reader, &runtime) == MXL_STATUS_OK);
            return runtime.headIndex;
        };
        auto const head = headBefore();
        for (int repeat = 0; repeat < 3; ++repeat)
        {
            CHECK(peer.writeRegion(0, 0, 1, 0, entries + 5) == std::optional<int>{0});
            // {headIndex, count}: far more samples than an entry holds.
            std::vector<std::uint8_t> header(16, 0);
            header[0] = 0x40;
            header[9] = 0x10;
            CHECK(peer.writeBytes(1, 0, header, 1U) == std::optional<int>{0});
            auto const until = std::chrono::steady_clock::now() + 200ms;
            std::size_t arrivals = 0;
            while (std::chrono::steady_clock::now() < until)
            {
                std::uint64_t arrivedHead = 0;
                std::size_t count = 0;
                arrivals += mxlFabricsTargetReadSamplesNonBlocking(link.target.target, &arrivedHead, &count) == MXL_ERR_NOT_READY ? 0 : 1;
            }
            CHECK(arrivals == 0);
        }
        CHECK(headBefore() == head);
        link.stream(firstHead + 2 * batch, 3, 22);
        auto const text = capture.text();
        INFO("stderr: ", text);
        CHECK(text.find("ignored a malformed completion") != std::string::npos);
        CHECK(text.find("this target has " + std::to_string(entries) + " entries") != std::string::npos);
    }
}

TEST_CASE("batches an initiator overwrote before the target read them: every read says TOO_LATE, and the log says so once, not once a "
          "batch")
{
    for (auto const& transport : audioTransports())
    {
        INFO(transport.label);
        LogCapture capture;
        AudioLink link{transport, "audio_48k_stereo.json"};
        MXL_SKIP_IF(hostilePeerCannotReach(link));
        std::size_t lateReads = 0;
        auto const readOnce = [&] { lateReads += link.read(0ms).status == MXL_ERR_OUT_OF_RANGE_TOO_LATE ? 1 : 0; };
        link.stream(firstHead, 2, 23);
        mxl::test::fabrics::HostilePeer peer{link.target.ticket, readOnce};
        // The first of the two batches streamed, already committed: what an entry holds when an initiator a whole bounce
        // buffer ahead has rewritten it with a batch the target read long ago.
        std::array<std::uint64_t, 2> const stale{firstHead, batch};
        std::vector<std::uint8_t> header(sizeof stale);
        std::memcpy(header.data(), stale.data(), sizeof stale);
        constexpr std::size_t overwritten = 30;
        for (std::size_t i = 0; i < overwritten; ++i)
        {
            auto const entry = static_cast<std::uint32_t>(i % 5 + 3);
            CHECK(peer.writeBytes(entry, 0, header, entry) == std::optional<int>{0});
            auto const until = std::chrono::steady_clock::now() + 5s;
            while (lateReads < i + 1 && std::chrono::steady_clock::now() < until)
            {
                readOnce();
            }
        }
        CHECK(lateReads == overwritten);
        // The honest initiator goes on where it was.
        link.stream(firstHead + 2 * batch, 3, 24);
        auto const text = capture.text();
        INFO("stderr: ", text);
        CHECK(mxl::client::occurrences(text, "are already committed: an initiator overwrote the entry") == 1);
        CHECK(text.find("(repeats of this are logged at most every 10 s)") != std::string::npos);
    }
}

TEST_CASE("an shm target that does not read: every batch it cannot take is NOT_READY for the caller, and the log says so once a kind")
{
    auto const transport = audioTransports().back();
    REQUIRE(transport.provider == MXL_FABRICS_PROVIDER_SHM);
    AudioLink link{transport, "audio_48k_stereo.json"};
    if (backendOf(link.targetDomain.fabrics) != "ofi")
    {
        MXL_SKIP("UCX over shm queues the writes of a target that makes no progress in its own buffers: none is refused");
    }
    LogCapture capture;
    // libfabric's shm takes the next write to a peer once the peer's progress completed the previous one, and this target makes none.
    constexpr std::size_t posts = 20;
    std::size_t refused = 0;
    for (std::size_t i = 0; i < posts; ++i)
    {
        auto const head = firstHead + i * batch;
        REQUIRE(writePatternSamples(link.source.writer, head, batch, 25));
        auto const status = mxlFabricsInitiatorTransferSamples(link.initiator.initiator, head, batch);
        CHECK((status == MXL_STATUS_OK || status == MXL_ERR_NOT_READY));
        refused += status == MXL_ERR_NOT_READY ? 1 : 0;
    }
    auto const text = capture.text();
    INFO("stderr: ", text);
    CHECK(refused >= posts - 2);
    auto const lines = mxl::client::occurrences(text, "mxl error: fabrics initiator: samples up to");
    // One a kind of refusal (a full transmit queue, an entry still in use), not one a batch.
    CHECK(lines >= 1);
    CHECK(lines <= 2);
    CHECK(mxl::client::occurrences(text, "(repeats of this are logged at most every 10 s)") == lines);
}
