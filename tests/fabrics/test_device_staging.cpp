// Device flows across the fabric (docs/device-flows.md, "Across the fabric"): a device flow at either end is staged
// through pinned host slots shaped like a host flow's grains, so device → device, host → device and device → host
// grains arrive byte-exact over tcp and shm, slice ranges land in order, and a grain whose device slot the writer
// reopened while it was in flight arrives INVALID. Each case runs with the fake device module (host memory standing in
// for a GPU, so it runs on every CUDA build) and again with the real module, where it skips without a GPU.
// The same with the payloads registered directly with the transport (setup option devicePayloads, tickets with split
// grain regions), every mix of direct, staged and host ends, and why "auto" stages and "direct" fails where the
// transport registers no device memory: with the fake module and the test knob MXL_FABRICS_DEVICE_MEMORY_IS_HOST=1
// (its device memory is host memory), since no transport here registers CUDA memory.
#if MXL_TEST_WITH_CUDA

#    include "Checksum.hpp"
#    include "FabricsHarness.hpp"
#    include "GrainPattern.hpp"
#    include "Link.hpp"
#    include "ScopedVariable.hpp"
#    include "Skip.hpp"
#    include "SuiteBackend.hpp"
#    include <client/LogCapture.hpp>

#    include <mxl/device.h>

#    include <doctest/doctest.h>
#    include <nlohmann/json.hpp>

#    include <algorithm>
#    include <cstdlib>
#    include <functional>
#    include <optional>
#    include <sstream>
#    include <string>
#    include <vector>

using namespace mxl::test;
using namespace mxl::test::fabrics;
using namespace std::chrono_literals;
using mxl::client::LogCapture;

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
        LogCapture capture;
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

    // Writes grain `index` of a host or device flow with the pattern of (index, seed); returns the pattern.
    std::vector<std::uint8_t> writeAnyGrain(Flow& flow, std::uint64_t index, std::uint32_t seed)
    {
        mxlGrainInfo info;
        std::uint8_t* payload = nullptr;
        REQUIRE(mxlFlowWriterOpenGrain(flow.writer, index, &info, &payload) == MXL_STATUS_OK);
        auto bytes = grainPattern(info.grainSize, index, seed);
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

    // The setup line of `role` ("target", "initiator") that contains `words`, or nullopt.
    std::optional<std::string> setupLine(std::string const& log, std::string const& role, std::string const& words)
    {
        std::istringstream lines{log};
        for (std::string line; std::getline(lines, line);)
        {
            if (line.find("fabrics " + role) != std::string::npos && line.find(words) != std::string::npos)
            {
                return line;
            }
        }
        return std::nullopt;
    }

    constexpr char const* directWords = "its flow's payloads on CUDA device 0 registered directly with the transport";
    constexpr char const* stagedWords = "its flow's payloads on CUDA device 0 staged through";

    // Six grains from `firstIndex` on, each written with its own seed after `seed`, sent whole and checked byte-exact.
    void sendSixGrains(Link& link, std::uint64_t firstIndex, std::uint32_t seed)
    {
        for (auto index = firstIndex; index < firstIndex + 6; ++index)
        {
            auto const sent = writeAnyGrain(link.source, index, ++seed);
            link.transfer(index, 0, videoSlices);
            checkArrived(link, index, sent);
        }
    }

    void checkDirections(std::vector<Transport> const& transports, FlowOptions const& options, std::string const& label)
    {
        for (auto const& transport : transports)
        {
            INFO(label, " over ", std::string{transport.label});
            LogCapture capture;
            Link link{transport, videoFile, std::nullopt, std::nullopt, options};
            checkTicketRegions(link);
            sendSixGrains(link, 300, 11);
            auto const log = capture.text();
            INFO("log: ", log);
            // The setup's own line says how each device end moves its payloads.
            CHECK(setupLine(log, "target", stagedWords).has_value() == (options.destination != nullptr));
            CHECK(setupLine(log, "initiator", stagedWords).has_value() == (options.source != nullptr));
        }
    }

    void deviceToDevice()
    {
        checkDirections(transports(), {onDevice, onDevice}, "device → device");
    }

    // tcp over 127.0.0.1 and shm.
    std::vector<Transport> tcpAndShm()
    {
        return {tcpLoopback(), shmTransport()};
    }

    // Device flows at both ends, over shm.
    Link deviceLinkOverShm()
    {
        return Link{shmTransport(), videoFile, std::nullopt, std::nullopt, {onDevice, onDevice}};
    }

    void hostAndDevice()
    {
        auto const some = tcpAndShm();
        checkDirections(some, {nullptr, onDevice}, "host → device");
        checkDirections(some, {onDevice, nullptr}, "device → host");
    }

    // Three slice ranges of one grain: after each, the target's readers see exactly the slices sent so far, byte-exact,
    // and the later ones still as they were.
    void sliceRanges()
    {
        auto link = deviceLinkOverShm();
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
        auto link = deviceLinkOverShm();
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

    constexpr char const* payloadsVariable = "MXL_FABRICS_DEVICE_PAYLOADS";
    constexpr std::size_t videoPayloadBytes = std::size_t{videoSlices} * videoLineBytes;

    // A target registered directly publishes two regions per ring slot, the 8192-byte header and the payload, and says so.
    void checkSplitRegions(Link& link)
    {
        auto const ticket = nlohmann::json::parse(ticketText(link.target.ticket));
        CHECK(ticket.value("grainRegions", "") == "split");
        auto const& regions = ticket.at("regions");
        REQUIRE(regions.size() == 2 * link.destination.config.discrete.grainCount);
        for (std::size_t index = 0; index < regions.size(); ++index)
        {
            INFO("region ", index);
            CHECK(regions[index].at("len").get<std::string>() == std::to_string(index % 2 == 0 ? 8192 : videoPayloadBytes));
        }
    }

    // How each end moves a device flow's payloads: directly, staged, or (a host flow) neither.
    enum class End
    {
        Host,
        Staged,
        Direct
    };

    struct Mix
    {
        char const* label;
        End initiator;
        End target;
    };

    // Six grains of `mix` over `transport`, each byte-exact, the ticket split exactly when the target is direct, and each
    // device end's setup line saying how it moves its payloads. devicePayloads comes from $MXL_FABRICS_DEVICE_PAYLOADS
    // for the initiator and the target's setup options for the target.
    void checkMix(Transport const& transport, Mix const& mix)
    {
        INFO(mix.label, " over ", std::string{transport.label});
        auto const payloads = [](End end) { return end == End::Direct ? "direct" : "staged"; };
        ScopedVariable const initiatorPayloads{payloadsVariable, payloads(mix.initiator)};
        auto const targetSetup = std::string{R"({"devicePayloads": ")"} + payloads(mix.target) + "\"}";
        LogCapture capture;
        Link link{transport,
                  videoFile,
                  std::nullopt,
                  std::nullopt,
                  {mix.initiator != End::Host ? onDevice : nullptr, mix.target != End::Host ? onDevice : nullptr, targetSetup.c_str()}};
        if (mix.target == End::Direct)
        {
            checkSplitRegions(link);
        }
        else
        {
            checkTicketRegions(link);
            CHECK(!nlohmann::json::parse(ticketText(link.target.ticket)).contains("grainRegions"));
        }
        sendSixGrains(link, 500, 23);
        auto const log = capture.text();
        INFO("log: ", log);
        for (auto const& [role, end] : {std::pair{"target", mix.target}, std::pair{"initiator", mix.initiator}})
        {
            INFO("the ", role);
            CHECK(setupLine(log, role, directWords).has_value() == (end == End::Direct));
            CHECK(setupLine(log, role, stagedWords).has_value() == (end == End::Staged));
        }
    }

    // An initiator reads a split ticket's regions as header and payload: one of another length is refused, naming it.
    void checkSplitTicketRefused(Link& link)
    {
        auto json = nlohmann::json::parse(ticketText(link.target.ticket));
        json["regions"][3]["len"] = "4096";
        json["id"] = "12345";
        mxlFabricsTargetInfo altered = nullptr;
        REQUIRE(mxlFabricsTargetInfoFromString(json.dump().c_str(), &altered) == MXL_STATUS_OK);
        LogCapture capture;
        CHECK(mxlFabricsInitiatorAddTarget(link.initiator.initiator, altered) == MXL_ERR_INVALID_ARG);
        auto const log = capture.text();
        CHECK_MESSAGE(log.find("has split grain regions, and its region 3 (the payload of ring slot 1) is 4096 bytes, expected " +
                               std::to_string(videoPayloadBytes)) != std::string::npos,
                      log);
        mxlFabricsFreeTargetInfo(altered);
    }

    void directToDirect()
    {
        ScopedVariable const hostMemory{deviceMemoryIsHostKnob, "1"};
        for (auto const& transport : tcpAndShm())
        {
            checkMix(transport, {"direct → direct", End::Direct, End::Direct});
        }
        ScopedVariable const direct{payloadsVariable, "direct"};
        auto link = deviceLinkOverShm();
        checkSplitTicketRefused(link);
    }

    void directMixed()
    {
        ScopedVariable const hostMemory{deviceMemoryIsHostKnob, "1"};
        for (auto const& transport : tcpAndShm())
        {
            for (auto const& mix : {Mix{"direct → staged", End::Direct, End::Staged}, Mix{"direct → host", End::Direct, End::Host},
                                    Mix{"host → direct", End::Host, End::Direct}, Mix{"staged → direct", End::Staged, End::Direct}})
            {
                checkMix(transport, mix);
            }
        }
    }

    // Slice ranges and a reopened source slot, as sliceRanges and reopenedSource, with both ends direct.
    void directSlicesAndReopened()
    {
        ScopedVariable const hostMemory{deviceMemoryIsHostKnob, "1"};
        ScopedVariable const direct{payloadsVariable, "direct"};
        {
            INFO("slice ranges");
            sliceRanges();
        }
        {
            INFO("a reopened source slot");
            reopenedSource();
        }
    }

    // A target of a device flow in a domain of its own, set up with `setupOptions`, and what its setup logged.
    struct DeviceTarget
    {
        DeviceTarget(char const* tag, mxlFabricsInterfaceConfig const& interface, char const* setupOptions)
            : domain{tag}
            , flow{domain, flowDefinition(videoFile), onDevice}
            , target{domain, flow, interface, setupOptions}
            , log{capture.text()}
        {
        }

        LogCapture capture;
        FlowDomain domain;
        Flow flow;
        TargetEnd target;
        std::string log;
    };

    // Without the knob nothing here registers CUDA memory: auto stages, naming why, and direct fails setup.
    void autoAndDirectWithoutTheKnob()
    {
        ScopedVariable const deviceMemory{deviceMemoryIsHostKnob, std::nullopt};
        ScopedVariable const unset{payloadsVariable, std::nullopt};
        auto const ofi = suiteBackendName() == "ofi";
        for (auto const& transport : tcpAndShm())
        {
            INFO(std::string{transport.label});
            auto const shm = transport.provider == MXL_FABRICS_PROVIDER_SHM;
            // Debian's libfabric: tcp has no FI_HMEM, shm claims it but its build registers no CUDA memory; Debian's UCX
            // has no CUDA memory type.
            auto const why = !ofi ? std::vector<std::string>{"this UCX reports no CUDA memory type (ucp_context_query)"}
                             : shm
                                 ? std::vector<std::string>{"bytes of CUDA device 0 memory at ", " failed: fi_mr_regattr: "}
                                 : std::vector<std::string>{
                                       "tcp target interface for device memory: provider tcp does not register device memory (no FI_HMEM)"};
            auto const says = [&](std::string const& text) {
                return std::all_of(why.begin(), why.end(), [&](std::string const& words) { return text.find(words) != std::string::npos; });
            };
            {
                LogCapture capture;
                Link link{transport, videoFile, std::nullopt, std::nullopt, {onDevice, onDevice, R"({"devicePayloads": "auto"})"}};
                checkTicketRegions(link);
                auto const log = capture.text();
                INFO("log: ", log);
                auto const line = setupLine(log, "target", stagedWords);
                REQUIRE(line.has_value());
                CHECK_MESSAGE(line->find("(staged: ") != std::string::npos, *line);
                CHECK_MESSAGE(says(*line), *line);
                CHECK(setupLine(log, "initiator", stagedWords).has_value());
            }
            {
                DeviceTarget const direct{"fab-direct-refused", interfaceConfig(transport.provider, transport.targetNode.c_str(), nullptr),
                                          R"({"devicePayloads": "direct"})"};
                CHECK(direct.target.setupStatus == MXL_ERR_UNSUPPORTED_OPERATION);
                CHECK_MESSAGE(direct.log.find("devicePayloads \"direct\" was asked for the flow's payloads on CUDA device 0, but ") !=
                                  std::string::npos,
                              direct.log);
                CHECK_MESSAGE(says(direct.log), direct.log);
            }
        }
    }

    // The msg transport's target places what it receives with host copies: direct cannot use it, auto stages.
    void directOverMsg()
    {
        if (suiteBackendName() != "ofi")
        {
            return;
        }
        ScopedVariable const hostMemory{deviceMemoryIsHostKnob, "1"};
        auto const interface = interfaceConfig(MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", nullptr);
        {
            DeviceTarget const direct{"fab-direct-msg", interface, R"({"transport": "msg", "devicePayloads": "direct"})"};
            CHECK(direct.target.setupStatus == MXL_ERR_UNSUPPORTED_OPERATION);
            CHECK_MESSAGE(
                direct.log.find("provider tcp was asked for transport msg, whose target places what it receives with host copies; "
                                "device memory needs rma") != std::string::npos,
                direct.log);
        }
        DeviceTarget const automatic{"fab-auto-msg", interface, R"({"transport": "msg", "devicePayloads": "auto"})"};
        CHECK(automatic.target.setupStatus == MXL_STATUS_OK);
        INFO("log: ", automatic.log);
        auto const line = setupLine(automatic.log, "target", stagedWords);
        REQUIRE(line.has_value());
        CHECK_MESSAGE(line->find("device memory needs rma") != std::string::npos, *line);
        CHECK(!nlohmann::json::parse(ticketText(automatic.target.ticket)).contains("grainRegions"));
    }

    void run(Module module, std::function<void()> const& scenario)
    {
        MXL_SKIP_IF(use(module));
        scenario();
    }

    // The direct cases run with the fake module only, and travel over rma (directOverMsg is the msg case) whatever
    // transport the suite runs under.
    void runDirect(std::function<void()> const& scenario)
    {
        run(Module::Fake,
            [&]
            {
                ScopedVariable const rma{"MXL_FABRICS_TRANSPORT", std::nullopt};
                scenario();
            });
    }
}

// A staged scenario as two cases, one per module, so that ctest shows the fake module's result apart from the GPU's.
#    define MXL_DEVICE_FLOW_CASES(what, scenario)                                                                                          \
        TEST_CASE("device flows across the fabric (fake module): " what)                                                                   \
        {                                                                                                                                  \
            run(Module::Fake, scenario);                                                                                                   \
        }                                                                                                                                  \
        TEST_CASE("device flows across the fabric (GPU): " what)                                                                           \
        {                                                                                                                                  \
            run(Module::Real, scenario);                                                                                                   \
        }

MXL_DEVICE_FLOW_CASES("device → device grains arrive byte-exact over tcp and shm", deviceToDevice)
MXL_DEVICE_FLOW_CASES("host → device and device → host grains arrive byte-exact", hostAndDevice)
MXL_DEVICE_FLOW_CASES("slice ranges land in order, each byte-exact", sliceRanges)
MXL_DEVICE_FLOW_CASES("a grain whose device slot is reopened in flight arrives INVALID", reopenedSource)

TEST_CASE("device payloads registered directly (fake module, test knob): device → device over tcp and shm, byte-exact, split ticket")
{
    runDirect(directToDirect);
}

TEST_CASE("device payloads registered directly (fake module, test knob): direct → staged, direct → host, host → direct, staged → direct")
{
    runDirect(directMixed);
}

TEST_CASE("device payloads registered directly (fake module, test knob): slice ranges byte-exact, a reopened source slot arrives INVALID")
{
    runDirect(directSlicesAndReopened);
}

TEST_CASE("device payloads registered directly (fake module): without the knob auto stages and logs why, direct fails setup naming why")
{
    runDirect(autoAndDirectWithoutTheKnob);
}

TEST_CASE("device payloads registered directly (fake module, test knob): direct refuses the msg transport, auto stages over it")
{
    run(Module::Fake, directOverMsg);
}

#endif
