// The real device module (libmxl-cuda.so) and its absence: a host flow never loads it; a build without CUDA, a missing
// module and a machine without a driver or device refuse device flows. A writer and a reader in two processes, a reader
// in the writer's process and mxl-test-source --device (read back, and shown by mxl-info) share device payloads
// byte-exact, through the fake module everywhere and through the real one where a GPU is present: the GPU cases print
// "MXL-SKIP: no CUDA device (...)" and count as skipped where the module finds none.
#include "DeviceTestSupport.hpp"
#include "FlowPeerCommand.hpp"
#include "Process.hpp"
#include "Skip.hpp"

#include <patterns/TestPatternRenderer.hpp>

#include <mxl/device.h>
#include <mxl/time.h>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <chrono>
#include <csignal>

using namespace mxl::test;
using namespace std::chrono_literals;

TEST_CASE("device module: host flows never load it")
{
#if MXL_TEST_WITH_CUDA
    // Even where a module would be found first.
    useFakeModule("working");
#endif
    DomainFixture fixture{"device"};
    auto const created = createWriter(fixture.instance, flowDefinition(videoFlowFile), R"({"payloadLocation": "host"})");
    REQUIRE(created.status == MXL_STATUS_OK);
    CHECK(created.config.common.payloadLocation == MXL_PAYLOAD_LOCATION_HOST_MEMORY);
    CHECK(created.config.common.deviceIndex == -1);
    REQUIRE(writeGrain(created.writer, 77) == MXL_STATUS_OK);
    auto const reader = requireVideoReader(fixture.instance);
    mxlGrainInfo grain{};
    std::uint8_t* payload = nullptr;
    REQUIRE(mxlFlowReaderGetGrainNonBlocking(reader, 77, &grain, &payload) == MXL_STATUS_OK);
    CHECK(fnv1a(payload, grain.grainSize) == grainPatternChecksum(grain.grainSize, 77));
    CHECK_FALSE(std::filesystem::exists(fixture.domain.path() / (flowId(videoFlowFile) + ".mxl-flow") / "device"));
    CHECK_FALSE(isMapped("libmxl-cuda.so"));
    mxlReleaseFlowReader(fixture.instance, reader);
    mxlReleaseFlowWriter(fixture.instance, created.writer);
}

#if !MXL_TEST_WITH_CUDA

TEST_CASE("device module: a build without CUDA refuses device flows and leaves nothing")
{
    DomainFixture fixture{"device"};
    auto const created = createWriter(fixture.instance, flowDefinition(videoFlowFile), deviceOptions);
    CHECK(created.status == MXL_ERR_UNSUPPORTED_OPERATION);
    checkLogHas(created.log, {"flow " + flowId(videoFlowFile) +
                              ": payloads on CUDA device 0: this libmxl was built without CUDA "
                              "(MXL_WITH_CUDA=OFF), so it has no device module"});
    CHECK(domainEntries(fixture.domain.path()).empty());
}

#else

TEST_CASE("device module: without a driver or a device, device flows are refused and leave nothing")
{
    DomainFixture fixture{"device"};
    auto const created = createDeviceWriter(fixture.instance);
    if (created.writer != nullptr)
    {
        mxlReleaseFlowWriter(fixture.instance, created.writer);
        MXL_SKIP("a CUDA device is present: the refusal without one cannot be seen on this machine");
    }
    // Found beside libmxl.so, loaded only now, by the first device flow.
    CHECK(isMapped("/lib/flow/libmxl-cuda.so"));
    checkLogHas(created.refusal,
                {"flow " + flowId(videoFlowFile) + ": payloads on CUDA device 0: no usable CUDA device: cudaGetDeviceCount: "});
    MESSAGE("the refusal on this machine: ", created.refusal);
    CHECK(domainEntries(fixture.domain.path()).empty());
}

TEST_CASE("device module: a libmxl without its module refuses device flows")
{
    // A copy of libmxl.so alone in a directory: nothing beside it, and MXL_DEVICE_MODULE_PATH names an empty directory.
    TempDomain alone{"device-alone"};
    std::filesystem::copy_file(MXL_LIBRARY, alone.path() / MXL_LIBRARY_SONAME);
    DomainFixture fixture{"device"};
    auto const empty = std::string{MXL_FAKE_DEVICE_MODULES_DIR} + "/empty";
    Process create{
        {"/bin/sh", "-c",
         fmt::format("LD_LIBRARY_PATH={} MXL_DEVICE_MODULE_PATH={} exec {} create --domain {} --flow {} --options '{}' 2>&1", alone.str(),
                     empty, MXL_FLOW_PEER, fixture.domain.str(), sourcePath(videoFlowFile).string(), deviceOptions)}};
    auto const output = create.drainOutput(30s);
    INFO("output: ", output);
    CHECK(create.wait(30s) == 0);
    CHECK(output.find(fmt::format("status {}", static_cast<int>(MXL_ERR_UNSUPPORTED_OPERATION))) != std::string::npos);
    CHECK(output.find(fmt::format("payloads on CUDA device 0: no device module libmxl-cuda.so in {}:{}", empty, alone.str())) !=
          std::string::npos);
    CHECK(output.find("(MXL_DEVICE_MODULE_PATH=" + empty + ")") != std::string::npos);
    CHECK(domainEntries(fixture.domain.path()).empty());
}

// The scenarios below run twice: with the working fake module (shared host memory standing in for a GPU, so they run
// on every machine with a CUDA build) and with the build's libmxl-cuda.so, where they skip without a GPU.
namespace
{
    void checkSameProcessReader(DomainFixture& fixture)
    {
        auto const created = requireDeviceWriter(fixture.instance);
        auto const reader = requireVideoReader(fixture.instance);
        std::uint64_t const index = 500;
        auto [grain, payload, pattern] = openPatternGrain(created.writer, index);
        REQUIRE(mxlFlowWriterCopyToDevice(created.writer, payload, pattern.data(), pattern.size()) == MXL_STATUS_OK);
        grain.validSlices = grain.totalSlices;
        REQUIRE(mxlFlowWriterCommitGrain(created.writer, &grain) == MXL_STATUS_OK);
        mxlGrainInfo seen{};
        std::uint8_t* seenPayload = nullptr;
        REQUIRE(mxlFlowReaderGetGrain(reader, index, 1'000'000'000, &seen, &seenPayload) == MXL_STATUS_OK);
        CHECK(seenPayload == payload);
        std::vector<std::uint8_t> back(pattern.size());
        REQUIRE(mxlFlowReaderCopyToHost(reader, back.data(), seenPayload, back.size()) == MXL_STATUS_OK);
        CHECK(fnv1a(back.data(), back.size()) == fnv1a(pattern.data(), pattern.size()));
        mxlReleaseFlowReader(fixture.instance, reader);
        mxlReleaseFlowWriter(fixture.instance, created.writer);
    }

    // flow-peer processes (which inherit the module choice through the environment): a writer committing each grain in
    // four parts, a reader waiting for every slice and copying each grain back.
    void checkTwoProcesses(DomainFixture const& fixture)
    {
        mxlRational const rate{25, 1};
        auto const start = mxlGetCurrentIndex(&rate) + 1'000'000;
        // The writer commits its five grains 100 ms apart from the moment it has created the flow, and a reader on a GPU
        // may take longer than that to initialise CUDA and import the payloads. The default history (200 ms: five slots,
        // four readable) would then have passed the first grain; one second keeps all five readable however late the
        // reader starts.
        std::ofstream{fixture.domain.path() / "options.json"} << R"({"urn:x-mxl:option:history_duration/v1.0": 1000000000})";
        Process writer{
            peer({"write", "--domain", fixture.domain.str(), "--flow", sourcePath(videoFlowFile).string(), "--options", deviceOptions,
                  "--start", std::to_string(start), "--count", "5", "--slices", "4", "--interval-ms", "100", "--hold-ms", "-1"})};
        REQUIRE(writer.waitForLine("created 1", 30s).has_value());
        Process reader{peer({"read", "--domain", fixture.domain.str(), "--id", flowId(videoFlowFile), "--start", std::to_string(start),
                             "--count", "5", "--timeout-ms", "20000"})};
        REQUIRE(reader.waitForLine("ready", 30s).has_value());
        REQUIRE(reader.waitForLine("payload ", 30s).has_value());
        for (std::uint64_t index = start; index < start + 5; ++index)
        {
            auto const wrote = writer.waitForLine("wrote ", 30s);
            auto const read = reader.waitForLine("grain ", 30s);
            REQUIRE(wrote.has_value());
            REQUIRE(read.has_value());
            auto const written = fields(*wrote);
            auto const seen = fields(*read);
            CHECK(written[0] == index);
            CHECK(seen[0] == index);
            CHECK(seen[1] == MXL_STATUS_OK);
            CHECK(seen[2] == videoSlices);
            CHECK(seen[4] == written[1]);
            CHECK(seen[4] == grainPatternChecksum(videoGrainBytes, index));
        }
        CHECK(reader.wait(30s) == 0);
        writer.signal(SIGTERM);
        writer.wait(30s);
    }

    // mxl-test-source --device 0 draws colour bars into device payloads; this process reads a grain back and compares
    // it with the renderer's bytes, and mxl-info shows the flow's location and draws a snapshot of it.
    void checkTestSource(DomainFixture const& fixture)
    {
        // 100x60 pictures: small enough that a loaded machine seldom makes the source late.
        auto const definition = sourcePath("tests/tools/data/video_v210_100x60p25.json");
        auto const id = nlohmann::json::parse(readFile(definition))["id"].get<std::string>();
        Process source{{MXL_TEST_SOURCE, "-d", fixture.domain.str(), "-v", definition.string(), "--device", "0"}};
        REQUIRE(source.waitForLine("flow " + id, 30s).has_value());
        mxlFlowReader reader = nullptr;
        REQUIRE(mxlCreateFlowReader(fixture.instance, id.c_str(), nullptr, &reader) == MXL_STATUS_OK);
        mxlFlowConfigInfo config{};
        REQUIRE(mxlFlowReaderGetConfigInfo(reader, &config) == MXL_STATUS_OK);
        CHECK(config.common.payloadLocation == MXL_PAYLOAD_LOCATION_DEVICE_MEMORY);
        CHECK(config.common.deviceIndex == 0);
        // A loaded machine makes the source late now and then, and a late grain is committed invalid: the first valid
        // one of the next 50 is compared.
        auto index = mxlGetCurrentIndex(&config.common.grainRate) + 2;
        auto const last = index + 50;
        mxlGrainInfo grain{};
        std::uint8_t* payload = nullptr;
        for (; index < last; ++index)
        {
            REQUIRE(mxlFlowReaderGetGrain(reader, index, 10'000'000'000, &grain, &payload) == MXL_STATUS_OK);
            if ((grain.flags & MXL_GRAIN_FLAG_INVALID) == 0)
            {
                break;
            }
        }
        REQUIRE(index < last);
        std::vector<std::uint8_t> back(grain.grainSize);
        REQUIRE(mxlFlowReaderCopyToHost(reader, back.data(), payload, back.size()) == MXL_STATUS_OK);
        std::vector<std::uint8_t> expected(grain.grainSize);
        mxl::patterns::TestPatternRenderer const renderer{100, 60, false};
        renderer.render(index, 0, 60, expected);
        CHECK(fnv1a(back.data(), back.size()) == fnv1a(expected.data(), expected.size()));
        mxlReleaseFlowReader(fixture.instance, reader);

        Process detail{{MXL_INFO, "-d", fixture.domain.str(), "-f", id}};
        auto const text = detail.drainOutput(30s);
        INFO("mxl-info: ", text);
        CHECK(detail.wait(30s) == 0);
        CHECK(text.find("  Payload location  : device memory\n") != std::string::npos);
        CHECK(text.find("  Device index      : 0\n") != std::string::npos);
        auto const picture = fixture.domain.path().parent_path() / (fixture.domain.path().filename().string() + "-snapshot.png");
        Process snapshot{{MXL_INFO, "-d", fixture.domain.str(), "--snapshot", id, picture.string()}};
        auto const written = snapshot.drainOutput(30s);
        INFO("mxl-info --snapshot: ", written);
        CHECK(snapshot.wait(30s) == 0);
        CHECK(written.find("written to " + picture.string()) != std::string::npos);
        CHECK(std::filesystem::file_size(picture) > 100);
        std::filesystem::remove(picture);
        source.signal(SIGTERM);
        CHECK(source.wait(30s) == 0);
    }
}

TEST_CASE("device flows (fake module): a reader in the writer's process uses the writer's payloads")
{
    onFakeModule(checkSameProcessReader);
}

TEST_CASE("device flows (GPU): a reader in the writer's process uses the writer's payloads")
{
    onGpu(checkSameProcessReader);
}

TEST_CASE("device flows (fake module): a writer and a reader in two processes agree on every grain and slice")
{
    onFakeModule(checkTwoProcesses);
}

TEST_CASE("device flows (GPU): a writer and a reader in two processes agree on every grain and slice")
{
    onGpu(checkTwoProcesses);
}

TEST_CASE("device flows (fake module): mxl-test-source --device writes colour bars that readers and mxl-info see")
{
    onFakeModule(checkTestSource);
}

TEST_CASE("device flows (GPU): mxl-test-source --device writes colour bars that readers and mxl-info see")
{
    onGpu(checkTestSource);
}

#endif
