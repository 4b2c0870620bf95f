#include "FlowRows.hpp"

#include "CheckMxlStatus.hpp"
#include "CudaCall.hpp"
#include "DeviceBuffer.hpp"
#include "MxlEnd.hpp"
#include "PayloadLocation.hpp"
#include "ReleaseStack.hpp"
#include "TemporaryDomains.hpp"

#include <fmt/format.h>

#include <cuda_runtime_api.h>

#include <vector>

namespace mxl::bench::device
{
    namespace
    {
        constexpr std::uint64_t readTimeoutNs = 1'000'000'000;

        // Runs body(0) untimed (first-touch costs), then body(1 … grains) on the clock.
        template <typename Body>
        Throughput measureThroughput(std::size_t grainBytes, std::uint32_t grains, Body&& body)
        {
            body(0);
            auto const startNs = steadyNowNs();
            for (std::uint32_t i = 1; i <= grains; ++i)
            {
                body(i);
            }
            return throughput(grainBytes, grains, static_cast<double>(steadyNowNs() - startNs) / 1e9);
        }

        std::size_t grainBytesOf(mxlFlowWriter writer)
        {
            mxlGrainInfo probe{};
            checkMxlStatus(mxlFlowWriterGetGrainInfo(writer, 0, &probe), "mxlFlowWriterGetGrainInfo 0");
            return probe.grainSize;
        }

        void copyDeviceToDevice(std::uint8_t* destination, std::uint8_t const* source, std::size_t bytes)
        {
            checkCuda(cudaMemcpy(destination, source, bytes, cudaMemcpyDeviceToDevice),
                      fmt::format("cudaMemcpy device to device of {} bytes", bytes));
            checkCuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize after a copy");
        }

        // Commits one ring of grains from `firstIndex` (their bytes do not matter), then times `samples` reads of the ones a
        // reader may read: all but the oldest, whose slot aliases the next grain a writer may open (too late for readers).
        Percentiles getGrainLatency(MxlEnd const& end, std::string const& flowId, std::uint32_t samples)
        {
            constexpr std::uint64_t firstIndex = 1'000'000;
            auto const ringGrains = end.flowConfig().discrete.grainCount;
            auto const readableGrains = ringGrains > 1 ? ringGrains - 1 : ringGrains;
            auto const firstReadable = firstIndex + (ringGrains - readableGrains);
            for (std::uint64_t index = firstIndex; index < firstIndex + ringGrains; ++index)
            {
                mxlGrainInfo grain{};
                std::uint8_t* payload = nullptr;
                checkMxlStatus(mxlFlowWriterOpenGrain(end.writer(), index, &grain, &payload),
                               fmt::format("mxlFlowWriterOpenGrain {}", index));
                grain.validSlices = grain.totalSlices;
                checkMxlStatus(mxlFlowWriterCommitGrain(end.writer(), &grain), fmt::format("mxlFlowWriterCommitGrain {}", index));
            }
            ReleaseStack releases;
            mxlFlowReader reader = nullptr;
            checkMxlStatus(mxlCreateFlowReader(end.instance(), flowId.c_str(), nullptr, &reader), "mxlCreateFlowReader " + flowId);
            releases.push([instance = end.instance(), reader] { mxlReleaseFlowReader(instance, reader); });

            std::vector<std::uint64_t> latencyNs;
            latencyNs.reserve(samples);
            for (std::uint32_t i = 0; i < samples; ++i)
            {
                auto const index = firstReadable + i % readableGrains;
                mxlGrainInfo grain{};
                std::uint8_t* payload = nullptr;
                auto const startNs = steadyNowNs();
                checkMxlStatus(mxlFlowReaderGetGrain(reader, index, readTimeoutNs, &grain, &payload),
                               fmt::format("mxlFlowReaderGetGrain {}", index));
                latencyNs.push_back(steadyNowNs() - startNs);
            }
            return percentiles(std::move(latencyNs));
        }
    }

    WriteCommitRows measureWriteCommit(FlowShape const& shape)
    {
        TemporaryDomains domains{"mxl-device-bench", domainHistoryNs};
        auto const options = writerOptions(PayloadLocation::device, shape.deviceIndex);
        MxlEnd end{domains.initiator(), shape.definition, options->c_str()};
        auto const grainBytes = grainBytesOf(end.writer());
        auto const ringGrains = end.flowConfig().discrete.grainCount;

        DeviceBuffer source{grainBytes};
        checkCuda(cudaMemset(source.data(), 0x5a, grainBytes), "cudaMemset of the source grain");
        DeviceBuffer ring{grainBytes * ringGrains};
        checkCuda(cudaMemset(ring.data(), 0, grainBytes * ringGrains), "cudaMemset of the baseline ring");
        auto const baseline = measureThroughput(
            grainBytes, shape.grains,
            [&](std::uint32_t i) { copyDeviceToDevice(ring.data() + grainBytes * (i % ringGrains), source.data(), grainBytes); });

        // The flow's payloads were zeroed by libmxl when allocated, so they are as warm as the baseline's ring.
        auto const flow = measureThroughput(
            grainBytes, shape.grains,
            [&](std::uint32_t i)
            {
                mxlGrainInfo grain{};
                std::uint8_t* payload = nullptr;
                checkMxlStatus(mxlFlowWriterOpenGrain(end.writer(), i, &grain, &payload), fmt::format("mxlFlowWriterOpenGrain {}", i));
                copyDeviceToDevice(payload, source.data(), grainBytes);
                grain.validSlices = grain.totalSlices;
                checkMxlStatus(mxlFlowWriterCommitGrain(end.writer(), &grain), fmt::format("mxlFlowWriterCommitGrain {}", i));
            });
        return {grainBytes, baseline, flow};
    }

    ReaderRows measureReaders(FlowShape const& shape)
    {
        TemporaryDomains domains{"mxl-device-bench", domainHistoryNs};
        MxlEnd host{domains.target(), shape.definition, nullptr};
        auto const options = writerOptions(PayloadLocation::device, shape.deviceIndex);
        MxlEnd device{domains.initiator(), shape.definition, options->c_str()};
        return {getGrainLatency(host, shape.flowId, shape.grains), getGrainLatency(device, shape.flowId, shape.grains)};
    }
}
