// Device flows across the fabric (docs/device-flows.md, "Across the fabric"): a device flow at either end is staged
// through pinned host slots shaped like a host flow's grains, so device → device, host → device and device → host
// grains arrive byte-exact over tcp and shm, slice ranges land in order, and a grain whose device slot the writer
// reopened while it was in flight arrives INVALID. Each case runs with the fake device module (host memory standing in
// for a GPU, so it runs on every CUDA build) and again with the real module, where it skips without a GPU.
#if MXL_TEST_WITH_CUDA

#    include "Checksum.hpp"
#    include "FabricsHarness.hpp"
#    include "Link.hpp"
#    include "Skip.hpp"
#    include "StderrCapture.hpp"

#    include <mxl/device.h>

#    include <doctest/doctest.h>
#    include <nlohmann/json.hpp>

#    include <cstdlib>
#    include <functional>
#    include <sstream>
#    include <string>
#    include <vector>

using namespace mxl::test;
using namespace mxl::test::fabrics;
using namespace std::chrono_literals;

namespace
{
    constexpr char const* onDevice = R"({"payloadLocation": "device", "deviceIndex": 0})";
    constexpr char const* videoFile = "v210_1080p59.94.json";
    constexpr std::uint16_t videoSlices = 1080;
    constexpr std::size_t videoLineBytes = 5120;

    enum class Module
    {
        Fake,
        Real
    };

    // Points this process at the module; a reason to skip where the real one finds no GPU.
    std::optional<std::string> use(Module module)
    {
        // Setup says at info level how it moves device payloads; the level is read once, before the first line.
        ::setenv("MXL_LOG_LEVEL", "info", 1);
        if (module == Module::Fake)
        {
            ::setenv("MXL_DEVICE_MODULE_PATH", MXL_FAKE_DEVICE_MODULE_DIR, 1);
            return std::nullopt;
        }
        ::unsetenv("MXL_DEVICE_MODULE_PATH");
        FlowDomain probe{"gpu-probe"};
        auto const definition = flowDefinition(videoFile);
        mxlFlowWriter writer = nullptr;
        mxlFlowConfigInfo config{};
        StderrCapture capture;
        if (mxlCreateFlowWriter(probe.instance, definition.c_str(), onDevice, &writer, &config, nullptr) != MXL_STATUS_OK)
        {
            return "no CUDA device (" + capture.text() + ")";
        }
        mxlReleaseFlowWriter(probe.instance, writer);
        return std::nullopt;
    }

    bool onDeviceMemory(Flow const& flow)
    {
        return flow.config.common.payloadLocation == MXL_PAYLOAD_LOCATION_DEVICE_MEMORY;
    }

    std::vector<std::uint8_t> pattern(std::uint64_t index, std::uint32_t seed, std::size_t size)
    {
        std::vector<std::uint8_t> bytes(size);
        auto state = static_cast<std::uint32_t>(index * 2654435761u) ^ seed ^ 0x9E3779B9u;
        for (auto& byte : bytes)
        {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            byte = static_cast<std::uint8_t>(state);
        }
        return bytes;
    }

    // Writes grain `index` of a host or device flow with the pattern of (index, seed); returns the pattern.
    std::vector<std::uint8_t> writeAnyGrain(Flow& flow, std::uint64_t index, std::uint32_t seed)
    {
        mxlGrainInfo info;
        std::uint8_t* payload = nullptr;
        REQUIRE(mxlFlowWriterOpenGrain(flow.writer, index, &info, &payload) == MXL_STATUS_OK);
        auto bytes = pattern(index, seed, info.grainSize);
        if (onDeviceMemory(flow))
        {
            REQUIRE(mxlFlowWriterCopyToDevice(flow.writer, payload, bytes.data(), bytes.size()) == MXL_STATUS_OK);
        }
        else
        {
            std::copy(bytes.begin(), bytes.end(), payload);
        }
        info.validSlices = info.totalSlices;
        REQUIRE(mxlFlowWriterCommitGrain(flow.writer, &info) == MXL_STATUS_OK);
        return bytes;
    }

    struct HostCopy
    {
        mxlGrainInfo info{};
        std::vector<std::uint8_t> bytes;
    };

    // What a reader of `flow` sees of grain `index` once it has `minValidSlices`, copied to host memory.
    std::optional<HostCopy> readAnyGrain(Flow& flow, std::uint64_t index, std::uint16_t minValidSlices)
    {
        HostCopy copy;
        std::uint8_t* payload = nullptr;
        if (mxlFlowReaderGetGrainSliceNonBlocking(flow.reader, index, minValidSlices, &copy.info, &payload) != MXL_STATUS_OK)
        {
            return std::nullopt;
        }
        copy.bytes.resize(copy.info.grainSize);
        if (onDeviceMemory(flow))
        {
            REQUIRE(mxlFlowReaderCopyToHost(flow.reader, copy.bytes.data(), payload, copy.bytes.size()) == MXL_STATUS_OK);
        }
        else
        {
            std::copy(payload, payload + copy.bytes.size(), copy.bytes.begin());
        }
        return copy;
    }

    void checkArrived(Link& link, std::uint64_t index, std::vector<std::uint8_t> const& sent)
    {
        auto const arrived = readAnyGrain(link.destination, index, videoSlices);
        REQUIRE(arrived.has_value());
        CHECK(arrived->info.index == index);
        CHECK(arrived->info.validSlices == videoSlices);
        CHECK((arrived->info.flags & MXL_GRAIN_FLAG_INVALID) == 0);
        CHECK(fnv1a(arrived->bytes.data(), arrived->bytes.size()) == fnv1a(sent.data(), sent.size()));
    }

    // The target's ticket publishes host-shaped regions (header and payload, 8192 + grainSize bytes), whatever memory its
    // flow's payloads are in: an initiator cannot tell a device target from a host one.
    void checkTicketRegions(Link& link)
    {
        auto const ticket = nlohmann::json::parse(ticketText(link.target.ticket));
        auto const& regions = ticket.at("regions");
        CHECK(regions.size() == link.destination.config.discrete.grainCount);
        for (auto const& region : regions)
        {
            CHECK(region.at("len").get<std::string>() == std::to_string(8192 + videoSlices * videoLineBytes));
        }
    }

    void checkDirections(std::vector<Transport> const& transports, FlowOptions const& options, std::string const& label)
    {
        for (auto const& transport : transports)
        {
            INFO(label, " over ", std::string{transport.label});
            StderrCapture capture;
            Link link{transport, videoFile, std::nullopt, std::nullopt, options};
            checkTicketRegions(link);
            std::uint32_t seed = 11;
            for (std::uint64_t index = 300; index < 306; ++index)
            {
                auto const sent = writeAnyGrain(link.source, index, ++seed);
                link.transfer(index, 0, videoSlices);
                checkArrived(link, index, sent);
            }
            auto const log = capture.text();
            INFO("log: ", log);
            // The setup's own line says how each device end moves its payloads.
            auto const staged = [&](char const* role)
            {
                std::istringstream lines{log};
                for (std::string line; std::getline(lines, line);)
                {
                    if (line.find(std::string{"fabrics "} + role) != std::string::npos &&
                        line.find("its flow's payloads on CUDA device 0 staged through") != std::string::npos)
                    {
                        return true;
                    }
                }
                return false;
            };
            CHECK(staged("target") == (options.destination != nullptr));
            CHECK(staged("initiator") == (options.source != nullptr));
        }
    }

    void deviceToDevice()
    {
        checkDirections(transports(), {onDevice, onDevice}, "device → device");
    }

    void hostAndDevice()
    {
        std::vector<Transport> const some{{"tcp 127.0.0.1", MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", "127.0.0.1"},
                                          {"shm", MXL_FABRICS_PROVIDER_SHM, uniqueShmName("target"), ""}};
        checkDirections(some, {nullptr, onDevice}, "host → device");
        checkDirections(some, {onDevice, nullptr}, "device → host");
    }

    // Three slice ranges of one grain: after each, the target's readers see exactly the slices sent so far, byte-exact,
    // and the later ones still as they were.
    void sliceRanges()
    {
        Link link{Transport{"shm", MXL_FABRICS_PROVIDER_SHM, uniqueShmName("target"), ""},
                  videoFile,
                  std::nullopt,
                  std::nullopt,
                  {onDevice, onDevice}};
        std::uint64_t const index = 900;
        auto const sent = writeAnyGrain(link.source, index, 77);
        for (std::uint16_t const end : {std::uint16_t{360}, std::uint16_t{720}, videoSlices})
        {
            INFO("slices up to ", end);
            link.transfer(index, end - 360, end);
            auto const arrived = readAnyGrain(link.destination, index, end);
            REQUIRE(arrived.has_value());
            CHECK(arrived->info.validSlices == end);
            auto const sentBytes = std::size_t{end} * videoLineBytes;
            CHECK(fnv1a(arrived->bytes.data(), sentBytes) == fnv1a(sent.data(), sentBytes));
        }
        checkArrived(link, index, sent);
    }

    // The writer reopens the device slot of a grain after the initiator copied it out but before the target read it:
    // the grain is announced lost (INVALID, no valid slices), never committed with the later grain's bytes.
    void reopenedSource()
    {
        Link link{Transport{"shm", MXL_FABRICS_PROVIDER_SHM, uniqueShmName("target"), ""},
                  videoFile,
                  std::nullopt,
                  std::nullopt,
                  {onDevice, onDevice}};
        std::uint64_t const index = 1200;
        static_cast<void>(writeAnyGrain(link.source, index, 5));
        REQUIRE(mxlFabricsInitiatorTransferGrain(link.initiator.initiator, index, 0, videoSlices) == MXL_STATUS_OK);
        auto const later = index + link.source.config.discrete.grainCount;
        mxlGrainInfo info;
        std::uint8_t* payload = nullptr;
        REQUIRE(mxlFlowWriterOpenGrain(link.source.writer, later, &info, &payload) == MXL_STATUS_OK);
        std::vector<std::uint8_t> const half(info.grainSize / 2, 0x5A);
        REQUIRE(mxlFlowWriterCopyToDevice(link.source.writer, payload, half.data(), half.size()) == MXL_STATUS_OK);

        auto const arrived = receive(link.initiator, link.target, 20s);
        REQUIRE(arrived.has_value());
        CHECK(*arrived == index);
        REQUIRE(settle(link.initiator, {&link.target}, 10s) == MXL_STATUS_OK);
        auto const grain = readAnyGrain(link.destination, index, MXL_GRAIN_VALID_SLICES_ANY);
        REQUIRE(grain.has_value());
        CHECK((grain->info.flags & MXL_GRAIN_FLAG_INVALID) != 0);
        CHECK(grain->info.validSlices == 0);
        mxlFabricsTargetCounters counters{};
        REQUIRE(mxlFabricsInitiatorGetTargetCounters(link.initiator.initiator, link.target.ticket, &counters) == MXL_STATUS_OK);
        CHECK(counters.transfersInvalidated == 1);
    }

    void run(Module module, std::function<void()> const& scenario)
    {
        if (auto const reason = use(module))
        {
            MXL_SKIP(reason->c_str());
        }
        scenario();
    }
}

TEST_CASE("device flows across the fabric (fake module): device → device grains arrive byte-exact over tcp and shm")
{
    run(Module::Fake, deviceToDevice);
}

TEST_CASE("device flows across the fabric (GPU): device → device grains arrive byte-exact over tcp and shm")
{
    run(Module::Real, deviceToDevice);
}

TEST_CASE("device flows across the fabric (fake module): host → device and device → host grains arrive byte-exact")
{
    run(Module::Fake, hostAndDevice);
}

TEST_CASE("device flows across the fabric (GPU): host → device and device → host grains arrive byte-exact")
{
    run(Module::Real, hostAndDevice);
}

TEST_CASE("device flows across the fabric (fake module): slice ranges land in order, each byte-exact")
{
    run(Module::Fake, sliceRanges);
}

TEST_CASE("device flows across the fabric (GPU): slice ranges land in order, each byte-exact")
{
    run(Module::Real, sliceRanges);
}

TEST_CASE("device flows across the fabric (fake module): a grain whose device slot is reopened in flight arrives INVALID")
{
    run(Module::Fake, reopenedSource);
}

TEST_CASE("device flows across the fabric (GPU): a grain whose device slot is reopened in flight arrives INVALID")
{
    run(Module::Real, reopenedSource);
}

#endif
