#include "FabricRun.hpp"

#include "CheckMxlStatus.hpp"
#include "FabricsInitiator.hpp"
#include "FabricsTarget.hpp"
#include "MxlEnd.hpp"
#include "ReleaseStack.hpp"
#include "TemporaryDomains.hpp"

#include <client/LogCapture.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <exception>
#include <functional>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <thread>
#include <vector>

namespace mxl::bench::device
{
    namespace
    {
        constexpr std::uint64_t arrivalTimeoutNs = 1'000'000'000;
        // How long the initiator waits for the target to read one more grain, or for room to transfer one, before the row is
        // given up.
        constexpr auto stallTimeout = std::chrono::seconds{10};

        // The bytes grain `index` carries: ring slot `slot`'s own pattern (64-bit words `slot << 48 | word number`),
        // written into the source once, with the grain's index stamped over its first word by the initiator.
        std::vector<std::uint8_t> expectedGrain(std::size_t grainBytes, std::uint64_t slot, std::optional<std::uint64_t> index)
        {
            std::vector<std::uint8_t> bytes(grainBytes);
            for (std::size_t offset = 0; offset < grainBytes; offset += sizeof(std::uint64_t))
            {
                auto const word = slot << 48 | offset / sizeof(std::uint64_t);
                std::memcpy(bytes.data() + offset, &word, std::min(sizeof word, grainBytes - offset));
            }
            if (index)
            {
                std::memcpy(bytes.data(), &*index, std::min(sizeof *index, grainBytes));
            }
            return bytes;
        }

        // The target's reads, from its own thread: the highest index read and when each grain arrived.
        class TargetReads
        {
        public:
            TargetReads(FabricsTarget& target, std::uint64_t grains)
                : _arrivalNs(grains, 0)
                , _thread{[this, &target](std::stop_token stop) { readUntil(target, stop); }}
            {
            }

            // The highest grain index read so far, or -1; rethrows what ended the target's thread.
            std::int64_t highest() const
            {
                if (_failed.load(std::memory_order_acquire))
                {
                    std::rethrow_exception(_failure);
                }
                return _highest.load(std::memory_order_acquire);
            }

            // Ends the thread; the arrival times are then complete.
            std::vector<std::uint64_t> const& stop()
            {
                _thread.request_stop();
                if (_thread.joinable())
                {
                    _thread.join();
                }
                return _arrivalNs;
            }

        private:
            std::vector<std::uint64_t> _arrivalNs;
            std::atomic<std::int64_t> _highest{-1};
            std::atomic<bool> _failed{false};
            std::exception_ptr _failure;
            std::jthread _thread;

            void readUntil(FabricsTarget& target, std::stop_token const& stop)
            {
                try
                {
                    while (!stop.stop_requested())
                    {
                        auto const index = target.readGrain();
                        if (!index || *index >= _arrivalNs.size())
                        {
                            continue;
                        }
                        _arrivalNs[*index] = steadyNowNs();
                        _highest.store(std::max(_highest.load(std::memory_order_relaxed), static_cast<std::int64_t>(*index)),
                                       std::memory_order_release);
                    }
                }
                catch (...)
                {
                    _failure = std::current_exception();
                    _failed.store(true, std::memory_order_release);
                }
            }
        };

        // Calls initiator progress until the target has read grain `index` (or a later one).
        void awaitRead(TargetReads const& reads, FabricsInitiator& initiator, std::int64_t index)
        {
            auto deadline = std::chrono::steady_clock::now() + stallTimeout;
            auto seen = reads.highest();
            while (seen < index)
            {
                initiator.progress();
                std::this_thread::yield();
                auto const now = std::chrono::steady_clock::now();
                if (auto const latest = reads.highest(); latest != seen)
                {
                    seen = latest;
                    deadline = now + stallTimeout;
                }
                else if (now > deadline)
                {
                    throw std::runtime_error{
                        fmt::format("the target read no grain for 10 s: the highest it read is {}, expected {}", seen, index)};
                }
            }
        }

        void fillSourceRing(MxlEnd const& source, PayloadLocation location, std::size_t grainBytes)
        {
            auto const ringGrains = source.flowConfig().discrete.grainCount;
            for (std::uint64_t slot = 0; slot < ringGrains; ++slot)
            {
                mxlGrainInfo grain{};
                std::uint8_t* payload = nullptr;
                checkMxlStatus(mxlFlowWriterOpenGrain(source.writer(), slot, &grain, &payload),
                               fmt::format("mxlFlowWriterOpenGrain {}", slot));
                auto const pattern = expectedGrain(grainBytes, slot, std::nullopt);
                copyToPayload(location, payload, pattern.data(), grainBytes);
                checkMxlStatus(mxlFlowWriterCancelGrain(source.writer()), fmt::format("mxlFlowWriterCancelGrain {}", slot));
            }
        }

        void sendGrain(MxlEnd const& source, PayloadLocation location, FabricsInitiator& initiator, std::uint64_t index)
        {
            mxlGrainInfo grain{};
            std::uint8_t* payload = nullptr;
            checkMxlStatus(mxlFlowWriterOpenGrain(source.writer(), index, &grain, &payload),
                           fmt::format("mxlFlowWriterOpenGrain {}", index));
            copyToPayload(location, payload, &index, std::min<std::size_t>(sizeof index, grain.grainSize));
            grain.validSlices = grain.totalSlices;
            checkMxlStatus(mxlFlowWriterCommitGrain(source.writer(), &grain), fmt::format("mxlFlowWriterCommitGrain {}", index));
            auto const deadline = std::chrono::steady_clock::now() + stallTimeout;
            while (!initiator.transferGrain(index, grain.totalSlices))
            {
                initiator.progress();
                if (std::chrono::steady_clock::now() > deadline)
                {
                    throw std::runtime_error{fmt::format("the initiator had no room to transfer grain {} for 10 s", index)};
                }
            }
            initiator.progress();
        }

        // Compares every grain still in the target's ring, but the oldest (its slot may be the one being rewritten), with
        // the pattern of the source's slot that sent it.
        void verifyTarget(MxlEnd const& sink, MxlEnd const& source, FabricShape const& shape, std::size_t grainBytes, FabricResult& result)
        {
            ReleaseStack releases;
            mxlFlowReader reader = nullptr;
            checkMxlStatus(mxlCreateFlowReader(sink.instance(), shape.flow.flowId.c_str(), nullptr, &reader),
                           "mxlCreateFlowReader of the target's flow " + shape.flow.flowId);
            releases.push([instance = sink.instance(), reader] { mxlReleaseFlowReader(instance, reader); });
            auto const ringGrains = sink.flowConfig().discrete.grainCount;
            auto const first = result.sent > ringGrains - 1 ? result.sent - (ringGrains - 1) : 0;
            std::vector<std::uint8_t> arrived(grainBytes);
            for (auto index = first; index < result.sent; ++index)
            {
                ++result.checked;
                mxlGrainInfo grain{};
                std::uint8_t* payload = nullptr;
                if (mxlFlowReaderGetGrain(reader, index, arrivalTimeoutNs, &grain, &payload) != MXL_STATUS_OK ||
                    grain.validSlices != grain.totalSlices)
                {
                    continue;
                }
                copyFromPayload(shape.location, arrived.data(), payload, grainBytes);
                auto const expected = expectedGrain(grainBytes, index % source.flowConfig().discrete.grainCount, index);
                if (arrived == expected)
                {
                    ++result.verified;
                    continue;
                }
                auto const differing = std::ranges::mismatch(arrived, expected);
                fmt::print(stderr, "mxl-device-bench: grain {} arrived with {} of {} bytes differing, the first at offset {}\n", index,
                           std::inner_product(arrived.begin(), arrived.end(), expected.begin(), std::size_t{0}, std::plus<>{},
                                              std::not_equal_to<>{}),
                           grainBytes, differing.in1 - arrived.begin());
            }
        }

        // From the target's read of the last warm-up grain (or the first later one it read) to its read of the last.
        Throughput targetThroughput(std::vector<std::uint64_t> const& arrivalNs, std::size_t grainBytes)
        {
            auto start = arrivalNs.size() / 4;
            while (start + 1 < arrivalNs.size() && arrivalNs[start] == 0)
            {
                ++start;
            }
            return throughput(grainBytes, arrivalNs.size() - 1 - start, static_cast<double>(arrivalNs.back() - arrivalNs[start]) / 1e9);
        }
    }

    FabricOutcome runFabric(FabricShape const& shape)
    {
        TemporaryDomains domains{"mxl-device-bench", domainHistoryNs};
        auto const options = writerOptions(shape.location, shape.flow.deviceIndex);
        auto const* optionsText = options ? options->c_str() : nullptr;
        MxlEnd sink{domains.target(), shape.flow.definition, optionsText};
        MxlEnd source{domains.initiator(), shape.flow.definition, optionsText};
        mxlGrainInfo probe{};
        checkMxlStatus(mxlFlowWriterGetGrainInfo(source.writer(), 0, &probe), "mxlFlowWriterGetGrainInfo 0");
        std::size_t const grainBytes = probe.grainSize;

        // Declared in this order so that the target's thread ends before the target does, also on an exception.
        std::optional<FabricsTarget> target;
        std::optional<TargetReads> reads;
        std::optional<FabricsInitiator> initiator;
        {
            client::LogCapture log;
            try
            {
                target.emplace(sink, shape.provider, shape.depth);
                // The initiator's constructor returns once connected, which needs the target's thread reading.
                reads.emplace(*target, shape.flow.grains);
                initiator.emplace(source, shape.flow.flowId.c_str(), shape.provider, shape.depth, target->ticket());
            }
            catch (std::exception const& e)
            {
                // The library's log says why; it went into the capture.
                auto const reason = log.lastMessage();
                if (auto const* status = dynamic_cast<MxlStatusError const*>(&e);
                    status && status->status() == MXL_ERR_UNSUPPORTED_OPERATION)
                {
                    return {std::nullopt, reason};
                }
                throw std::runtime_error{reason.empty() ? std::string{e.what()} : fmt::format("{}: {}", e.what(), reason)};
            }
        }

        fillSourceRing(source, shape.location, grainBytes);
        FabricResult result;
        for (std::uint64_t index = 0; index < shape.flow.grains; ++index)
        {
            awaitRead(*reads, *initiator, static_cast<std::int64_t>(index) - static_cast<std::int64_t>(shape.depth));
            sendGrain(source, shape.location, *initiator, index);
            ++result.sent;
        }
        awaitRead(*reads, *initiator, static_cast<std::int64_t>(shape.flow.grains) - 1);
        auto const& arrivalNs = reads->stop();
        result.received = static_cast<std::uint64_t>(std::ranges::count_if(arrivalNs, [](std::uint64_t ns) { return ns != 0; }));
        result.throughput = targetThroughput(arrivalNs, grainBytes);
        verifyTarget(sink, source, shape, grainBytes, result);
        return {result, {}};
    }
}
