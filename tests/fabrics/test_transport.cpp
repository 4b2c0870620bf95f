// The transport choice (rma, msg, auto): how it is resolved, asked for, published in the ticket and checked at
// AddTarget, and how the msg transport's target places (or drops) what it receives. Transfers over msg are the
// "msg:"-prefixed registrations of the transfer suites (CMakeLists.txt).
#include "FabricsHarness.hpp"
#include "ScopedVariable.hpp"
#include "Skip.hpp"
#include "fabrics/backends/ofi/MessageFormat.hpp"
#include "fabrics/core/SetupOptions.hpp"
#include "fabrics/protocol/Transport.hpp"
#include "fabrics/ticket/TargetInfo.hpp"
#include <client/LogCapture.hpp>

#include "common/Status.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

using namespace mxl::test;
using namespace mxl::test::fabrics;
using FabricsTransport = mxl::fabrics::Transport;
using mxl::client::LogCapture;

namespace
{
    std::string failureText(auto&& body)
    {
        try
        {
            body();
        }
        catch (mxl::Error const& e)
        {
            CHECK(e.status() == MXL_ERR_INVALID_ARG);
            return e.what();
        }
        FAIL("no failure");
        return {};
    }
}

TEST_CASE("transport: auto takes rma where the provider has it and msg where not, and rma where it is missing is refused")
{
    using mxl::fabrics::chooseTransport;
    auto const missing = std::optional<std::string>{"endpoint with FI_RMA and remote CQ data"};

    auto const autoWithRma = chooseTransport(FabricsTransport::Auto, "tcp", std::nullopt);
    CHECK(autoWithRma.transport == FabricsTransport::Rma);
    CHECK(autoWithRma.reason == "provider tcp has RMA with remote CQ data");

    auto const autoWithout = chooseTransport(FabricsTransport::Auto, "efa", missing);
    CHECK(autoWithout.transport == FabricsTransport::Msg);
    CHECK(autoWithout.reason == "provider efa has no endpoint with FI_RMA and remote CQ data");

    auto const msgAsked = chooseTransport(FabricsTransport::Msg, "tcp", std::nullopt);
    CHECK(msgAsked.transport == FabricsTransport::Msg);
    CHECK(msgAsked.reason == "asked");
    CHECK(chooseTransport(FabricsTransport::Rma, "shm", std::nullopt).transport == FabricsTransport::Rma);

    CHECK(failureText([&] { static_cast<void>(chooseTransport(FabricsTransport::Rma, "efa", missing)); }) ==
          "transport rma was asked for, but provider efa has no endpoint with FI_RMA and remote CQ data; ask for transport msg or auto");
}

TEST_CASE("transport: the setup options name it, and MXL_FABRICS_TRANSPORT is the default of options that do not")
{
    using mxl::fabrics::SetupOptions;
    {
        ScopedVariable const unset{"MXL_FABRICS_TRANSPORT", std::nullopt};
        CHECK(SetupOptions::parse(nullptr).transport == FabricsTransport::Auto);
        CHECK(SetupOptions::parse(R"({"transport": "msg"})").transport == FabricsTransport::Msg);
        CHECK(SetupOptions::parse(R"({"transport": "rma", "cqDepth": 8})").transport == FabricsTransport::Rma);
        CHECK(failureText([] { static_cast<void>(SetupOptions::parse(R"({"transport": "send"})")); }) ==
              R"(option transport must be "rma", "msg" or "auto", not "send")");
        CHECK(failureText([] { static_cast<void>(SetupOptions::parse(R"({"transport": 2})")); }) ==
              R"(option transport must be "rma", "msg" or "auto", not 2)");
    }
    ScopedVariable const msg{"MXL_FABRICS_TRANSPORT", "msg"};
    CHECK(SetupOptions::parse("").transport == FabricsTransport::Msg);
    CHECK(SetupOptions::parse(R"({"transport": "auto"})").transport == FabricsTransport::Auto);
    ScopedVariable const wrong{"MXL_FABRICS_TRANSPORT", "tagged"};
    CHECK(failureText([] { static_cast<void>(SetupOptions::parse(nullptr)); }) ==
          R"(MXL_FABRICS_TRANSPORT must be rma, msg or auto, not "tagged")");
}

TEST_CASE("transport: a msg ticket carries \"transport\", an rma ticket has no such key")
{
    using mxl::fabrics::TargetInfo;
    TargetInfo info;
    info.id = 7;
    info.fabricAddress = {1, 2, 3};
    info.addressFormat = 2;
    info.provider = MXL_FABRICS_PROVIDER_TCP;
    CHECK(info.toJson().find("transport") == std::string::npos);
    info.transport = "msg";
    auto const text = info.toJson();
    CHECK(text.find(R"("transport":"msg")") != std::string::npos);
    CHECK(TargetInfo::fromJson(text.c_str()) == info);
    auto const rma = TargetInfo::fromJson(R"({"addressFormat":2,"fabricAddress":"AQID","id":"7","provider":"tcp","regions":[]})");
    CHECK(rma.transport == "rma");
}

TEST_CASE("transport: a msg receive is placed where its header says, and one that disagrees with its header or lacks the key is dropped")
{
    using namespace mxl::fabrics;
    std::vector<std::uint8_t> slotA(64, 0);
    std::vector<std::uint8_t> slotB(64, 0);
    MessageRegions const regions{{{slotA.data(), slotA.size()}, {slotB.data(), slotB.size()}}, {0x1111, 0x2222}};
    auto const receive = [](MessagePlacement header, std::vector<std::uint8_t> const& bytes)
    {
        std::vector<std::uint8_t> received(sizeof(header));
        std::memcpy(received.data(), &header, sizeof(header));
        received.insert(received.end(), bytes.begin(), bytes.end());
        return received;
    };
    std::vector<std::uint8_t> const payload{9, 8, 7, 6};

    CHECK_FALSE(placeMessage(receive({messagePlacementMagic, 1, 60, 4, 0x2222}, payload), regions).has_value());
    CHECK(std::vector<std::uint8_t>(slotB.begin() + 60, slotB.end()) == payload);
    CHECK(slotB[59] == 0);
    CHECK(std::all_of(slotA.begin(), slotA.end(), [](auto byte) { return byte == 0; }));

    // A torn or truncated send: fewer bytes arrived than the header announced. Nothing is written.
    auto const torn = placeMessage(receive({messagePlacementMagic, 0, 0, 8, 0x1111}, payload), regions);
    REQUIRE(torn.has_value());
    CHECK(*torn == "a receive carries 4 bytes after its header, which announced 8");
    CHECK(std::all_of(slotA.begin(), slotA.end(), [](auto byte) { return byte == 0; }));

    CHECK(placeMessage(receive({messagePlacementMagic, 1, 61, 4, 0x2222}, payload), regions) ==
          "a receive of 4 bytes at offset 61 lies outside region 1 of 64 bytes");
    CHECK(placeMessage(receive({messagePlacementMagic, 2, 0, 4, 0x2222}, payload), regions) ==
          "a receive names region 2, the target has 2");
    // As an RMA write needs the region's key, so does a send: without the ticket nothing is placed.
    CHECK(placeMessage(receive({messagePlacementMagic, 0, 0, 4, 0x2222}, payload), regions) ==
          "a receive for region 0 carries a key that is not the region's");
    CHECK(placeMessage(receive({0x12345678, 0, 0, 4, 0x1111}, payload), regions) ==
          "a receive starts with 0x12345678, not the placement header's magic 0x4d584c31");
    CHECK(placeMessage(std::vector<std::uint8_t>(10), regions) == "a receive of 10 bytes is shorter than the 32-byte placement header");
    CHECK(std::all_of(slotA.begin(), slotA.end(), [](auto byte) { return byte == 0; }));
}

namespace
{
    mxlStatus setupInitiator(mxlFabricsInitiator initiator, Flow& flow, char const* options)
    {
        mxlFabricsInitiatorConfig config{};
        config.interface = interfaceConfig(MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", nullptr);
        config.reader = flow.reader;
        return mxlFabricsInitiatorSetup(initiator, &config, options);
    }
}

TEST_CASE("transport: a msg target's ticket says msg, and an initiator of the other transport is refused at AddTarget")
{
    // The ofi backend's msg transport, also where the suite runs again on another backend (ucx:fabrics-tests).
    ScopedVariable const ofi{"MXL_FABRICS_BACKEND", std::nullopt};
    ScopedVariable const unset{"MXL_FABRICS_TRANSPORT", std::nullopt};
    FlowDomain sourceDomain{"fab-src"};
    FlowDomain targetDomain{"fab-dst"};
    Flow source{sourceDomain, flowDefinition("v210_1080p59.94.json")};
    Flow destination{targetDomain, flowDefinition("v210_1080p59.94.json")};
    TargetEnd target{targetDomain, destination, interfaceConfig(MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", nullptr), R"({"transport": "msg"})"};
    REQUIRE(target.setupStatus == MXL_STATUS_OK);
    CHECK(ticketText(target.ticket).find(R"("transport":"msg")") != std::string::npos);

    mxlFabricsInitiator rma = nullptr;
    REQUIRE(mxlFabricsCreateInitiator(sourceDomain.fabrics, &rma) == MXL_STATUS_OK);
    REQUIRE(setupInitiator(rma, source, R"({"transport": "rma"})") == MXL_STATUS_OK);
    LogCapture capture;
    CHECK(mxlFabricsInitiatorAddTarget(rma, target.ticket) == MXL_ERR_INVALID_ARG);
    auto const log = capture.text();
    CHECK(
        log.find(
            R"(was set up with transport "msg", this initiator uses transport "rma" (asked); set the initiator's transport option to "msg")") !=
        std::string::npos);
    CHECK(mxlFabricsDestroyInitiator(sourceDomain.fabrics, rma) == MXL_STATUS_OK);

    mxlFabricsInitiator msg = nullptr;
    REQUIRE(mxlFabricsCreateInitiator(sourceDomain.fabrics, &msg) == MXL_STATUS_OK);
    REQUIRE(setupInitiator(msg, source, R"({"transport": "msg"})") == MXL_STATUS_OK);
    CHECK(mxlFabricsInitiatorAddTarget(msg, target.ticket) == MXL_STATUS_OK);
    CHECK(mxlFabricsDestroyInitiator(sourceDomain.fabrics, msg) == MXL_STATUS_OK);
}

TEST_CASE("transport: where the provider has no RMA (test knob), auto falls back to msg visibly and rma is refused")
{
    ScopedVariable const ofi{"MXL_FABRICS_BACKEND", std::nullopt};
    ScopedVariable const unset{"MXL_FABRICS_TRANSPORT", std::nullopt};
    ScopedVariable const hidden{"MXL_FABRICS_OFI_HIDE_RMA", "1"};
    FlowDomain targetDomain{"fab-dst"};
    Flow destination{targetDomain, flowDefinition("v210_1080p59.94.json")};
    auto const interface = interfaceConfig(MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", nullptr);
    {
        LogCapture capture;
        TargetEnd refused{targetDomain, destination, interface, R"({"transport": "rma"})"};
        CHECK(refused.setupStatus == MXL_ERR_INVALID_ARG);
        CHECK(capture.text().find("transport rma was asked for, but provider tcp has no endpoint with FI_RMA and remote CQ data") !=
              std::string::npos);
    }
    LogCapture capture;
    TargetEnd fallback{targetDomain, destination, interface};
    REQUIRE(fallback.setupStatus == MXL_STATUS_OK);
    CHECK(ticketText(fallback.ticket).find(R"("transport":"msg")") != std::string::npos);
    CHECK(capture.text().find("transport: msg (provider tcp has no endpoint with FI_RMA and remote CQ data)") != std::string::npos);
}

TEST_CASE("transport: the ucx backend refuses msg, naming itself")
{
    ScopedVariable const unset{"MXL_FABRICS_TRANSPORT", std::nullopt};
    FlowDomain targetDomain{"fab-dst"};
    Flow destination{targetDomain, flowDefinition("v210_1080p59.94.json")};
    mxlFabricsInstance ucx = nullptr;
    if (mxlFabricsCreateInstance(targetDomain.instance, R"({"backend": "ucx"})", &ucx) != MXL_STATUS_OK)
    {
        MXL_SKIP("the ucx backend is not built");
    }
    mxlFabricsTarget target = nullptr;
    REQUIRE(mxlFabricsCreateTarget(ucx, &target) == MXL_STATUS_OK);
    mxlFabricsTargetConfig config{};
    config.interface = interfaceConfig(MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", nullptr);
    config.writer = destination.writer;
    mxlFabricsTargetInfo ticket = nullptr;
    LogCapture capture;
    CHECK(mxlFabricsTargetSetup(target, &config, R"({"transport": "msg"})", &ticket) == MXL_ERR_INVALID_ARG);
    CHECK(capture.text().find("transport msg was asked for, but fabrics backend ucx has no msg transport yet") != std::string::npos);
    CHECK(mxlFabricsDestroyTarget(ucx, target) == MXL_STATUS_OK);
    CHECK(mxlFabricsDestroyInstance(ucx) == MXL_STATUS_OK);
}

TEST_CASE("transport: a sample flow whose bounce-buffer entries exceed one msg transfer is refused at setup, and sets up over rma")
{
    ScopedVariable const ofi{"MXL_FABRICS_BACKEND", std::nullopt};
    ScopedVariable const unset{"MXL_FABRICS_TRANSPORT", std::nullopt};
    FlowDomain domain{"fab-dst"};
    // Batches of 100 ms: 4800 samples of 16 float32 channels make entries of 16 + 307,200 bytes, beyond msg's 256 KiB.
    mxlFlowWriter writer = nullptr;
    mxlFlowConfigInfo flowConfig{};
    REQUIRE(mxlCreateFlowWriter(domain.instance, flowDefinition("audio_48k_16ch.json").c_str(),
                                R"({"maxCommitBatchSizeHint": 4800, "maxSyncBatchSizeHint": 4800})", &writer, &flowConfig,
                                nullptr) == MXL_STATUS_OK);
    mxlFabricsTarget target = nullptr;
    REQUIRE(mxlFabricsCreateTarget(domain.fabrics, &target) == MXL_STATUS_OK);
    mxlFabricsTargetConfig config{};
    config.interface = interfaceConfig(MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", nullptr);
    config.writer = writer;
    mxlFabricsTargetInfo ticket = nullptr;
    {
        LogCapture capture;
        CHECK(mxlFabricsTargetSetup(target, &config, R"({"transport": "msg"})", &ticket) == MXL_ERR_INVALID_ARG);
        CHECK(capture.text().find("the sample flow's bounce-buffer entries of 307216 bytes are longer than the 262144 bytes transport msg "
                                  "carries in one transfer here") != std::string::npos);
    }
    REQUIRE(mxlFabricsTargetSetup(target, &config, R"({"transport": "rma"})", &ticket) == MXL_STATUS_OK);
    CHECK(ticketText(ticket).find(R"("bounceBufferInfo":{"entryCount":")") != std::string::npos);
    CHECK(mxlFabricsFreeTargetInfo(ticket) == MXL_STATUS_OK);
    CHECK(mxlFabricsDestroyTarget(domain.fabrics, target) == MXL_STATUS_OK);
    CHECK(mxlReleaseFlowWriter(domain.instance, writer) == MXL_STATUS_OK);
}
