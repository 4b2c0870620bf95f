// Device module ABI 1.1: what a transport that cannot register device memory needs to stage a device flow's payloads
// through pinned host memory. libmxl hands the module's table to libmxl-fabrics in each writer's and reader's
// FlowMemory; here that table is driven as the fabrics layer would, through libmxl's wrappers (mxl::device::Module):
// on a target, a grain staged in pinned memory is copied into the writer's ring on a stream and read by another
// process; on an initiator, grains another process wrote are copied out of the reader's ring. Both run with the fake
// module, and with the real one where a GPU is present.
#include "DeviceTestSupport.hpp"
#include "FlowPeerCommand.hpp"
#include "Process.hpp"
#include "Skip.hpp"

#include "common/FlowMemory.hpp"
#include "common/Status.hpp"
#include "device/DeviceModule.hpp"

#include <mxl/time.h>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

using namespace mxl::test;
using namespace std::chrono_literals;

#if MXL_TEST_WITH_CUDA

namespace
{
    // The text of the mxl::Error `call` throws.
    template <typename Call>
    std::string failureOf(Call&& call)
    {
        try
        {
            std::forward<Call>(call)();
        }
        catch (mxl::Error const& e)
        {
            return e.what();
        }
        return "(no failure)";
    }

    std::string pointerText(void const* pointer)
    {
        return fmt::format("{}", pointer);
    }

    // The module a flow handle carries, wrapped as libmxl wraps it.
    mxl::device::Module moduleOf(mxl::FlowMemory const& memory)
    {
        REQUIRE(memory.deviceModule != nullptr);
        return mxl::device::Module{*memory.deviceModule, "the flow's device module"};
    }

    // Pinned host memory for one grain, released with the scope.
    class PinnedBuffer
    {
    public:
        PinnedBuffer(mxl::device::Module const& module, std::size_t bytes)
            : _module{module}
            , _bytes{static_cast<std::uint8_t*>(module.hostAllocate(bytes))}
            , _size{bytes}
        {
        }

        PinnedBuffer(PinnedBuffer const&) = delete;
        PinnedBuffer& operator=(PinnedBuffer const&) = delete;

        ~PinnedBuffer()
        {
            CHECK(_module.table().host_release(_bytes) == 0);
        }

        [[nodiscard]] std::uint8_t* bytes() const noexcept
        {
            return _bytes;
        }

        [[nodiscard]] std::size_t nonZeroBytes() const
        {
            return _size - static_cast<std::size_t>(std::count(_bytes, _bytes + _size, std::uint8_t{0}));
        }

    private:
        mxl::device::Module const& _module;
        std::uint8_t* _bytes;
        std::size_t _size;
    };

    // A stream on one device, destroyed with the scope.
    class Stream
    {
    public:
        Stream(mxl::device::Module const& module, int device)
            : _module{module}
            , _device{device}
            , _stream{module.streamCreate(device)}
        {
        }

        Stream(Stream const&) = delete;
        Stream& operator=(Stream const&) = delete;

        ~Stream()
        {
            CHECK(_module.table().stream_destroy(_device, _stream) == 0);
        }

        [[nodiscard]] void* get() const noexcept
        {
            return _stream;
        }

    private:
        mxl::device::Module const& _module;
        int _device;
        void* _stream;
    };

    std::uint8_t* slotPayload(mxl::FlowMemory const& memory, std::uint64_t index)
    {
        return memory.devicePayloads + (index % memory.grainCount) * memory.deviceGrainStrideBytes;
    }

    std::uint64_t futureIndex()
    {
        mxlRational const rate{25, 1};
        return mxlGetCurrentIndex(&rate) + 1'000'000;
    }

    // A target's part: a grain painted in pinned memory, copied into the writer's ring on a stream and committed, is
    // what a reader in another process reads; copied back out on the same stream, it is the same bytes.
    void checkStagingIntoWriter(DomainFixture const& fixture)
    {
        auto const created = requireDeviceWriter(fixture.instance);
        auto const& memory = created.writer->memory;
        auto const module = moduleOf(memory);
        PinnedBuffer const staged{module, videoGrainBytes};
        CHECK(staged.nonZeroBytes() == 0);
        auto const index = futureIndex();
        fillGrainPattern(staged.bytes(), videoGrainBytes, index);
        CHECK(fnv1a(staged.bytes(), videoGrainBytes) == grainPatternChecksum(videoGrainBytes, index));

        mxlGrainInfo grain{};
        std::uint8_t* payload = nullptr;
        REQUIRE(mxlFlowWriterOpenGrain(created.writer, index, &grain, &payload) == MXL_STATUS_OK);
        CHECK(payload == slotPayload(memory, index));
        REQUIRE(grain.grainSize == videoGrainBytes);
        {
            Stream const stream{module, memory.localDeviceIndex};
            module.copyToDeviceAsync(memory.localDeviceIndex, payload, staged.bytes(), videoGrainBytes, stream.get());
            module.streamSynchronize(memory.localDeviceIndex, stream.get());
            grain.validSlices = grain.totalSlices;
            REQUIRE(mxlFlowWriterCommitGrain(created.writer, &grain) == MXL_STATUS_OK);

            PinnedBuffer const back{module, videoGrainBytes};
            module.copyToHostAsync(memory.localDeviceIndex, back.bytes(), payload, videoGrainBytes, stream.get());
            module.streamSynchronize(memory.localDeviceIndex, stream.get());
            CHECK(fnv1a(back.bytes(), videoGrainBytes) == grainPatternChecksum(videoGrainBytes, index));
        }

        Process reader{peer({"read", "--domain", fixture.domain.str(), "--id", flowId(videoFlowFile), "--start", std::to_string(index),
                             "--count", "1", "--timeout-ms", "20000"})};
        auto const line = reader.waitForLine("grain ", 30s);
        REQUIRE(line.has_value());
        auto const seen = fields(*line);
        REQUIRE(seen.size() >= 5);
        CHECK(seen[0] == index);
        CHECK(seen[1] == MXL_STATUS_OK);
        CHECK(seen[2] == videoSlices);
        CHECK(seen[4] == grainPatternChecksum(videoGrainBytes, index));
        CHECK(reader.wait(30s) == 0);
        CHECK(mxlReleaseFlowWriter(fixture.instance, created.writer) == MXL_STATUS_OK);
    }

    // An initiator's part: grains a writer in another process commits are copied out of this process's reader's ring
    // (an imported mapping) into pinned memory on a stream, byte-exact.
    void checkStagingOutOfReader(DomainFixture const& fixture)
    {
        auto const start = futureIndex();
        Process writer{peer({"write", "--domain", fixture.domain.str(), "--flow", sourcePath(videoFlowFile).string(), "--options",
                             deviceOptions, "--start", std::to_string(start), "--count", "3", "--interval-ms", "100", "--hold-ms", "-1"})};
        REQUIRE(writer.waitForLine("created 1", 30s).has_value());
        auto const reader = requireVideoReader(fixture.instance);
        auto const& memory = reader->memory;
        auto const module = moduleOf(memory);
        CHECK(memory.localDeviceIndex == 0);
        PinnedBuffer const staged{module, videoGrainBytes};
        Stream const stream{module, memory.localDeviceIndex};
        for (auto index = start; index < start + 3; ++index)
        {
            CAPTURE(index);
            auto const wrote = writer.waitForLine("wrote ", 30s);
            REQUIRE(wrote.has_value());
            CHECK(fields(*wrote)[0] == index);
            mxlGrainInfo grain{};
            std::uint8_t* payload = nullptr;
            REQUIRE(mxlFlowReaderGetGrain(reader, index, 10'000'000'000, &grain, &payload) == MXL_STATUS_OK);
            CHECK(payload == slotPayload(memory, index));
            module.copyToHostAsync(memory.localDeviceIndex, staged.bytes(), payload, grain.grainSize, stream.get());
            module.streamSynchronize(memory.localDeviceIndex, stream.get());
            CHECK(fnv1a(staged.bytes(), grain.grainSize) == fields(*wrote)[1]);
            CHECK(fnv1a(staged.bytes(), grain.grainSize) == grainPatternChecksum(videoGrainBytes, index));
        }
        CHECK(mxlReleaseFlowReader(fixture.instance, reader) == MXL_STATUS_OK);
        writer.signal(SIGTERM);
        writer.wait(30s);
    }
}

TEST_CASE_FIXTURE(FakeModuleWriter,
                  "device module ABI 1.1 (fake module): device writers and readers carry the module's table, host flows none")
{
    auto const reader = requireVideoReader(fixture.instance);
    auto const* const table = created.writer->memory.deviceModule;
    REQUIRE(table != nullptr);
    CHECK(table->abiVersion == MXL_DEVICE_MODULE_ABI_VERSION);
    CHECK(table->abiVersion == 0x10001u);
    CHECK(table->structSize == sizeof(mxlDeviceModule));
    CHECK(reader->memory.deviceModule == table);
    CHECK(reader->memory.localDeviceIndex == 0);

    DomainFixture hostFixture{"device-host"};
    auto const host = createWriter(hostFixture.instance, flowDefinition(videoFlowFile), nullptr);
    REQUIRE(host.status == MXL_STATUS_OK);
    mxlFlowReader hostReader = nullptr;
    REQUIRE(mxlCreateFlowReader(hostFixture.instance, flowId(videoFlowFile).c_str(), nullptr, &hostReader) == MXL_STATUS_OK);
    CHECK(host.writer->memory.deviceModule == nullptr);
    CHECK(hostReader->memory.deviceModule == nullptr);
    CHECK(host.writer->memory.devicePayloads == nullptr);

    mxlReleaseFlowReader(hostFixture.instance, hostReader);
    mxlReleaseFlowWriter(hostFixture.instance, host.writer);
    mxlReleaseFlowReader(fixture.instance, reader);
    mxlReleaseFlowWriter(fixture.instance, created.writer);
}

TEST_CASE("device module ABI 1.1 (fake module): a grain staged through pinned memory reaches a reader in another process")
{
    onFakeModule(checkStagingIntoWriter);
}

TEST_CASE("device module ABI 1.1 (GPU): a grain staged through pinned memory reaches a reader in another process")
{
    onGpu(checkStagingIntoWriter);
}

TEST_CASE("device module ABI 1.1 (fake module): grains another process wrote are staged out of a reader's ring")
{
    onFakeModule(checkStagingOutOfReader);
}

TEST_CASE("device module ABI 1.1 (GPU): grains another process wrote are staged out of a reader's ring")
{
    onGpu(checkStagingOutOfReader);
}

TEST_CASE("device module ABI 1.1 (fake module): a stream the module did not create and host pointers as device memory fail")
{
    useFakeModule("working");
    ::setenv("MXL_FAKE_DEVICE_COUNT", "2", 1);
    DomainFixture fixture{"device"};
    auto const created = requireDeviceWriter(fixture.instance);
    auto const& memory = created.writer->memory;
    auto const module = moduleOf(memory);
    PinnedBuffer const staged{module, 4096};
    Stream const stream{module, 0};
    Stream const otherDevice{module, 1};
    auto* const payload = slotPayload(memory, 0);

    int notAStream = 0;
    CHECK(failureOf([&] { module.streamSynchronize(0, &notAStream); }) ==
          "waiting for a stream's copies failed: fake cudaStreamSynchronize on CUDA device 0: stream " + pointerText(&notAStream) +
              " was not created by this module on that device (cudaErrorInvalidResourceHandle)");
    // A stream of another device is foreign to this one, and so is one destroyed.
    CHECK(failureOf([&] { module.streamSynchronize(0, otherDevice.get()); }) ==
          "waiting for a stream's copies failed: fake cudaStreamSynchronize on CUDA device 0: stream " + pointerText(otherDevice.get()) +
              " was not created by this module on that device (cudaErrorInvalidResourceHandle)");
    CHECK(failureOf([&] { module.streamSynchronize(1, otherDevice.get()); }) == "(no failure)");
    CHECK(failureOf([&] { module.copyToDeviceAsync(0, payload, staged.bytes(), 4096, otherDevice.get()); }) ==
          "queuing a copy to the device failed: fake cudaMemcpyAsync host to device on CUDA device 0: stream " +
              pointerText(otherDevice.get()) + " was not created by this module on that device (cudaErrorInvalidResourceHandle)");
    void* const destroyed = module.streamCreate(0);
    module.streamDestroy(0, destroyed);
    CHECK(failureOf([&] { module.streamSynchronize(0, destroyed); }) ==
          "waiting for a stream's copies failed: fake cudaStreamSynchronize on CUDA device 0: stream " + pointerText(destroyed) +
              " was not created by this module on that device (cudaErrorInvalidResourceHandle)");

    // The device side of a copy must lie in the ring: host memory, or a range one byte past the ring's end, is not.
    std::vector<std::uint8_t> host(4096);
    CHECK(failureOf([&] { module.copyToHostAsync(0, staged.bytes(), host.data(), host.size(), stream.get()); }) ==
          "queuing a copy from the device failed: fake cudaMemcpyAsync device to host on CUDA device 0: 4096 bytes at " +
              pointerText(host.data()) + " are not device memory of this module (cudaErrorInvalidValue)");
    auto* const ringEnd = memory.devicePayloads + memory.grainCount * memory.deviceGrainStrideBytes;
    CHECK(failureOf([&] { module.copyToDeviceAsync(0, ringEnd - 4095, staged.bytes(), 4096, stream.get()); }) ==
          "queuing a copy to the device failed: fake cudaMemcpyAsync host to device on CUDA device 0: 4096 bytes at " +
              pointerText(ringEnd - 4095) + " are not device memory of this module (cudaErrorInvalidValue)");
    CHECK(failureOf([&] { module.copyToDeviceAsync(0, ringEnd - 4096, staged.bytes(), 4096, stream.get()); }) == "(no failure)");
    CHECK(failureOf([&] { module.hostRelease(host.data()); }) ==
          "releasing pinned host memory failed: fake cudaFreeHost: " + pointerText(host.data()) +
              " is not pinned memory of this module (cudaErrorInvalidValue)");
    CHECK(failureOf([&] { module.streamSynchronize(0, stream.get()); }) == "(no failure)");
    mxlReleaseFlowWriter(fixture.instance, created.writer);
}

#endif
