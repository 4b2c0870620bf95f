// Device flows through a fake device module (host memory standing in for a GPU, tests/device/FakeDeviceModule.cpp):
// what libmxl does around the device memory runs here on every machine with a CUDA build. Each case runs in its own
// process (CTest), so the module a case loads never leaks into the next.
#include "DeviceTestSupport.hpp"

#include "common/FlowLayout.hpp"

#include <mxl/device.h>

#include <doctest/doctest.h>

#include <unistd.h>

#include <cstring>
#include <fstream>
#include <vector>

using namespace mxl::test;
using mxl::client::LogCapture;

#if MXL_TEST_WITH_CUDA

namespace
{
    std::filesystem::path flowDirectory(TempDomain const& domain)
    {
        return domain.path() / (flowId(videoFlowFile) + ".mxl-flow");
    }

    mxl::layout::DeviceRecord readRecord(TempDomain const& domain)
    {
        mxl::layout::DeviceRecord record{};
        std::ifstream in{flowDirectory(domain) / "device", std::ios::binary};
        in.read(reinterpret_cast<char*>(&record), sizeof record);
        REQUIRE(in.gcount() == static_cast<std::streamsize>(sizeof record));
        return record;
    }

    std::uint64_t strideFor(std::uint64_t bytes)
    {
        return (bytes + mxl::layout::deviceGrainAlignmentBytes - 1) / mxl::layout::deviceGrainAlignmentBytes *
               mxl::layout::deviceGrainAlignmentBytes;
    }
}

TEST_CASE_FIXTURE(FakeModuleWriter, "device flows (fake module): the writer's flow records its device ring, grain files keep only headers")
{
    CHECK(created.config.common.payloadLocation == MXL_PAYLOAD_LOCATION_DEVICE_MEMORY);
    CHECK(created.config.common.deviceIndex == 0);

    auto const record = readRecord(fixture.domain);
    CHECK(record.magic == mxl::layout::deviceRecordMagic);
    CHECK(std::memcmp(&record.magic, "MXLD", 4) == 0);
    CHECK(record.version == 1);
    CHECK(record.deviceIndex == 0);
    CHECK(record.grainCount == created.config.discrete.grainCount);
    CHECK(std::string{record.pciBusId} == "0000:17:00.0");
    CHECK(record.grainSizeBytes == videoGrainBytes);
    CHECK(record.grainStrideBytes == strideFor(videoGrainBytes));
    CHECK(record.grainStrideBytes % 4096 == 0);
    CHECK(record.allocationBytes == record.grainStrideBytes * record.grainCount);
    CHECK(record.writerProcessId == ::getpid());
    CHECK(std::filesystem::file_size(flowDirectory(fixture.domain) / "device") == sizeof(mxl::layout::DeviceRecord));
    for (std::uint32_t slot = 0; slot < record.grainCount; ++slot)
    {
        CHECK(std::filesystem::file_size(flowDirectory(fixture.domain) / "grains" / ("data." + std::to_string(slot))) == 8192);
    }

    // Grain k's payload is slot (k mod grainCount) of the ring, at its fixed stride.
    mxlGrainInfo grain{};
    std::uint8_t* first = nullptr;
    std::uint8_t* second = nullptr;
    REQUIRE(mxlFlowWriterOpenGrain(created.writer, 10 * record.grainCount, &grain, &first) == MXL_STATUS_OK);
    mxlFlowWriterCancelGrain(created.writer);
    REQUIRE(mxlFlowWriterOpenGrain(created.writer, 10 * record.grainCount + 3, &grain, &second) == MXL_STATUS_OK);
    CHECK(second - first == static_cast<std::ptrdiff_t>(3 * record.grainStrideBytes));
    CHECK(grain.grainSize == videoGrainBytes);
    CHECK(mxlReleaseFlowWriter(fixture.instance, created.writer) == MXL_STATUS_OK);
    CHECK(domainEntries(fixture.domain.path()).empty());
}

TEST_CASE_FIXTURE(FakeModuleWriter,
                  "device flows (fake module): a reader in the writer's process gets the writer's payloads, slice by slice")
{
    // The fake refuses an import in the exporting process, as CUDA does: the reader must not try.
    auto const reader = requireVideoReader(fixture.instance);
    mxlFlowConfigInfo config{};
    REQUIRE(mxlFlowReaderGetConfigInfo(reader, &config) == MXL_STATUS_OK);
    CHECK(config.common.payloadLocation == MXL_PAYLOAD_LOCATION_DEVICE_MEMORY);
    CHECK(config.common.deviceIndex == 0);

    std::uint64_t const index = 1000;
    auto [grain, payload, pattern] = openPatternGrain(created.writer, index);
    auto const half = pattern.size() / 2;
    REQUIRE(mxlFlowWriterCopyToDevice(created.writer, payload, pattern.data(), half) == MXL_STATUS_OK);
    grain.validSlices = videoSlices / 2;
    REQUIRE(mxlFlowWriterCommitGrain(created.writer, &grain) == MXL_STATUS_OK);

    mxlGrainInfo seen{};
    std::uint8_t* seenPayload = nullptr;
    CHECK(mxlFlowReaderGetGrainNonBlocking(reader, index, &seen, &seenPayload) == MXL_ERR_OUT_OF_RANGE_TOO_EARLY);
    REQUIRE(mxlFlowReaderGetGrainSliceNonBlocking(reader, index, videoSlices / 2, &seen, &seenPayload) == MXL_STATUS_OK);
    CHECK(seenPayload == payload);
    CHECK(seen.validSlices == videoSlices / 2);
    std::vector<std::uint8_t> back(half);
    REQUIRE(mxlFlowReaderCopyToHost(reader, back.data(), seenPayload, half) == MXL_STATUS_OK);
    CHECK(fnv1a(back.data(), half) == fnv1a(pattern.data(), half));

    REQUIRE(mxlFlowWriterCopyToDevice(created.writer, payload + half, pattern.data() + half, pattern.size() - half) == MXL_STATUS_OK);
    grain.validSlices = videoSlices;
    REQUIRE(mxlFlowWriterCommitGrain(created.writer, &grain) == MXL_STATUS_OK);
    REQUIRE(mxlFlowReaderGetGrainNonBlocking(reader, index, &seen, &seenPayload) == MXL_STATUS_OK);
    back.resize(pattern.size());
    REQUIRE(mxlFlowReaderCopyToHost(reader, back.data(), seenPayload, back.size()) == MXL_STATUS_OK);
    CHECK(fnv1a(back.data(), back.size()) == fnv1a(pattern.data(), pattern.size()));

    // An invalid grain is served as on host flows: at once, flagged.
    REQUIRE(mxlFlowWriterOpenGrain(created.writer, index + 1, &grain, &payload) == MXL_STATUS_OK);
    grain.flags = MXL_GRAIN_FLAG_INVALID;
    grain.validSlices = 0;
    REQUIRE(mxlFlowWriterCommitGrain(created.writer, &grain) == MXL_STATUS_OK);
    REQUIRE(mxlFlowReaderGetGrainNonBlocking(reader, index + 1, &seen, &seenPayload) == MXL_STATUS_OK);
    CHECK(seen.flags == MXL_GRAIN_FLAG_INVALID);
    CHECK(seenPayload == payload);

    CHECK(mxlReleaseFlowReader(fixture.instance, reader) == MXL_STATUS_OK);
    CHECK(mxlReleaseFlowWriter(fixture.instance, created.writer) == MXL_STATUS_OK);
}

TEST_CASE_FIXTURE(FakeModuleWriter, "device flows (fake module): copies outside the payload ring or on host flows are refused")
{
    auto const record = readRecord(fixture.domain);
    mxlGrainInfo grain{};
    std::uint8_t* payload = nullptr;
    REQUIRE(mxlFlowWriterOpenGrain(created.writer, record.grainCount - 1, &grain, &payload) == MXL_STATUS_OK);
    std::vector<std::uint8_t> bytes(record.grainStrideBytes + 1);
    // The last slot's stride ends the ring: one byte more is outside.
    CHECK(mxlFlowWriterCopyToDevice(created.writer, payload, bytes.data(), record.grainStrideBytes) == MXL_STATUS_OK);
    LogCapture capture;
    CHECK(mxlFlowWriterCopyToDevice(created.writer, payload, bytes.data(), record.grainStrideBytes + 1) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFlowWriterCopyToDevice(created.writer, bytes.data(), bytes.data(), 1) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFlowWriterCopyToDevice(created.writer, payload, nullptr, 1) == MXL_ERR_INVALID_ARG);
    auto const log = capture.text();
    checkLogHas(log, {"flow " + flowId(videoFlowFile) + ": " + std::to_string(record.grainStrideBytes + 1) + " bytes at device address",
                      "are not inside its payload ring", "hostSource is NULL"});

    auto const host = createWriter(fixture.instance, flowDefinition(dataFlowFile), nullptr);
    REQUIRE(host.status == MXL_STATUS_OK);
    REQUIRE(mxlFlowWriterOpenGrain(host.writer, 5, &grain, &payload) == MXL_STATUS_OK);
    LogCapture hostCapture;
    CHECK(mxlFlowWriterCopyToDevice(host.writer, payload, bytes.data(), 1) == MXL_ERR_INVALID_ARG);
    checkLogHas(hostCapture.text(), {"the writer's payloads are in host memory, expected a device flow"});
    mxlReleaseFlowWriter(fixture.instance, host.writer);
    mxlReleaseFlowWriter(fixture.instance, created.writer);
}

TEST_CASE("device flows (fake module): a device index this process does not see is refused, nothing is left")
{
    useFakeModule("working");
    ::setenv("MXL_FAKE_DEVICE_COUNT", "2", 1);
    DomainFixture fixture{"device"};
    auto const created =
        createWriter(fixture.instance, flowDefinition(videoFlowFile), R"({"payloadLocation": "device", "deviceIndex": 2})");
    CHECK(created.status == MXL_ERR_NOT_FOUND);
    checkLogHas(created.log, {"flow " + flowId(videoFlowFile) +
                              ": payloads on CUDA device 2: this process sees 2 CUDA device(s), "
                              "expected an index from 0 to 1"});
    CHECK(domainEntries(fixture.domain.path()).empty());

    auto const second = createWriter(fixture.instance, flowDefinition(videoFlowFile), R"({"payloadLocation": "device", "deviceIndex": 1})");
    REQUIRE(second.status == MXL_STATUS_OK);
    CHECK(std::string{readRecord(fixture.domain).pciBusId} == "0000:18:00.0");
    mxlReleaseFlowWriter(fixture.instance, second.writer);
}

TEST_CASE_FIXTURE(FakeModuleWriter, "device flows (fake module): a reader that does not see the writer's GPU is refused")
{
    // From here on the fake's only GPU has another bus id, as a reader's would with other CUDA_VISIBLE_DEVICES.
    ::setenv("MXL_FAKE_BUS_BASE", "65", 1);
    mxlFlowReader reader = nullptr;
    LogCapture capture;
    CHECK(mxlCreateFlowReader(fixture.instance, flowId(videoFlowFile).c_str(), nullptr, &reader) == MXL_ERR_NOT_FOUND);
    checkLogHas(capture.text(), {"flow " + flowId(videoFlowFile) +
                                 ": payloads on the writer's CUDA device 0 (PCI bus id 0000:17:00.0): "
                                 "this process does not see that GPU: its 1 CUDA device(s) have PCI bus ids "
                                 "[0000:65:00.0]"});
    mxlReleaseFlowWriter(fixture.instance, created.writer);
}

TEST_CASE_FIXTURE(FakeModuleWriter, "device flows (fake module): a damaged device record is refused by readers")
{
    auto record = readRecord(fixture.domain);
    auto const path = flowDirectory(fixture.domain) / "device";
    auto const rewrite = [&](mxl::layout::DeviceRecord const& changed)
    {
        std::ofstream out{path, std::ios::binary | std::ios::in};
        out.write(reinterpret_cast<char const*>(&changed), sizeof changed);
    };
    auto const refusal = [&]
    {
        mxlFlowReader reader = nullptr;
        LogCapture capture;
        CHECK(mxlCreateFlowReader(fixture.instance, flowId(videoFlowFile).c_str(), nullptr, &reader) == MXL_ERR_UNKNOWN);
        return capture.text();
    };
    auto changed = record;
    changed.version = 2;
    rewrite(changed);
    checkLogHas(refusal(), {path.string() + " has magic 0x444c584d and version 2, expected 0x444c584d and version 1"});
    changed = record;
    changed.grainSizeBytes = 7;
    rewrite(changed);
    checkLogHas(refusal(), {path.string() + " describes " + std::to_string(record.grainCount) + " grains of 7 bytes"});
    changed = record;
    changed.allocationBytes = record.allocationBytes - 1;
    rewrite(changed);
    checkLogHas(refusal(), {path.string() + " has a grain stride of"});
    std::filesystem::resize_file(path, 100);
    checkLogHas(refusal(), {path.string() + " is 100 bytes, expected at least 160 (truncated flow file)"});
    mxlReleaseFlowWriter(fixture.instance, created.writer);
}

TEST_CASE("device flows (fake module): a writer must ask for the payload location the flow has")
{
    useFakeModule("working");
    DomainFixture fixture{"device"};
    DomainFixture other{"device-other"};
    auto const created = requireDeviceWriter(fixture.instance);
    // A second instance of the same domain joins the flow as a second writer would.
    auto* const second = mxlCreateInstance(fixture.domain.str().c_str(), nullptr);
    auto const host = createWriter(second, flowDefinition(videoFlowFile), nullptr);
    CHECK(host.status == MXL_ERR_UNKNOWN);
    checkLogHas(host.log, {"flow " + flowId(videoFlowFile) +
                           " exists with its payloads in device memory (CUDA device 0), but this "
                           "writer asks for host memory"});
    auto const same = createWriter(second, flowDefinition(videoFlowFile), deviceOptions);
    CHECK(same.status == MXL_STATUS_OK);
    mxlDestroyInstance(second);
    mxlReleaseFlowWriter(fixture.instance, created.writer);

    auto const hostFlow = createWriter(other.instance, flowDefinition(videoFlowFile), nullptr);
    REQUIRE(hostFlow.status == MXL_STATUS_OK);
    auto* const third = mxlCreateInstance(other.domain.str().c_str(), nullptr);
    auto const device = createWriter(third, flowDefinition(videoFlowFile), deviceOptions);
    CHECK(device.status == MXL_ERR_UNKNOWN);
    checkLogHas(device.log, {"exists with its payloads in host memory, but this writer asks for device memory (CUDA device 0)"});
    mxlDestroyInstance(third);
    mxlReleaseFlowWriter(other.instance, hostFlow.writer);
}

TEST_CASE("device flows (fake module): an audio flow is refused device memory")
{
    useFakeModule("working");
    DomainFixture fixture{"device"};
    auto const created = createWriter(fixture.instance, flowDefinition(audioFlowFile), deviceOptions);
    CHECK(created.status == MXL_ERR_UNSUPPORTED_OPERATION);
    checkLogHas(created.log, {"flow " + flowId(audioFlowFile) + " is an audio (continuous) flow and asks for payloads on CUDA device 0"});
    CHECK(domainEntries(fixture.domain.path()).empty());
    CHECK_FALSE(isMapped("libmxl-cuda.so"));
}

TEST_CASE("device flows (fake module): a module that cannot be used is refused, nothing is left")
{
    struct Case
    {
        char const* module;
        std::vector<std::string> fragments;
    };
    auto const moduleFile = [](char const* module) { return std::string{MXL_FAKE_DEVICE_MODULES_DIR} + "/" + module + "/libmxl-cuda.so"; };
    std::vector<Case> const cases{
        {"abi2",
         {"payloads on CUDA device 0: the device module " + moduleFile("abi2") +
          " implements device module ABI 2.0, this libmxl needs 1.x"}},
        // A module built before ABI 1.1: its table ends after last_error (11 members of 8 bytes: 88; 1.1 adds 7: 144).
        {"abi10",
         {"payloads on CUDA device 0: the device module " + moduleFile("abi10") +
          " has a table of 88 bytes (ABI 1.0), this libmxl needs at least 144 (ABI 1.1)"}},
        {"no-entry", {"payloads on CUDA device 0: the device module " + moduleFile("no-entry") + " has no mxlDeviceModuleEntry"}},
        {"not-elf", {"payloads on CUDA device 0: cannot load the device module " + moduleFile("not-elf") + ":"}},
        // Last: this module loads, and a loaded module stays for the rest of the process.
        {"no-driver", {"payloads on CUDA device 0: no usable CUDA device: cudaGetDeviceCount: CUDA driver version is insufficient"}},
    };
    for (auto const& each : cases)
    {
        CAPTURE(each.module);
        useFakeModule(each.module);
        DomainFixture fixture{"device"};
        auto const created = createWriter(fixture.instance, flowDefinition(videoFlowFile), deviceOptions);
        CHECK(created.status == MXL_ERR_UNSUPPORTED_OPERATION);
        checkLogHas(created.log, {"flow " + flowId(videoFlowFile) + ": "});
        for (auto const& fragment : each.fragments)
        {
            checkLogHas(created.log, {fragment});
        }
        CHECK(domainEntries(fixture.domain.path()).empty());
    }
}

#endif
