// allowInitiators and admissionKeyFile (include/mxl/fabrics_state.h): a tcp target admits the initiators whose address
// lies in its prefixes, and that prove its ticket key where it asks for that, and refuses the others before an endpoint
// is made for them, counting each request and logging each address once per reason; targets that receive no connection requests
// refuse the options at setup.
#include "FabricsHarness.hpp"
#include "FreePort.hpp"
#include "Link.hpp"
#include "Skip.hpp"
#include "TempDomain.hpp"
#include "common/AddressPrefix.hpp"
#include "fabrics/core/InitiatorAdmission.hpp"
#include "fabrics/core/SetupOptions.hpp"
#include "fabrics/core/Target.hpp"
#include "fabrics/protocol/IncarnationMark.hpp"
#include "fabrics/transport/TableBackend.hpp"
#include <client/LogCapture.hpp>

#include "common/Base64.hpp"
#include "common/Status.hpp"

#include <mxl/fabrics_state.h>

#include <doctest/doctest.h>

#include <netinet/in.h>

#include <algorithm>
#include <fmt/format.h>
#include <string>

using namespace mxl::test;
using namespace mxl::test::fabrics;
using namespace std::chrono_literals;
using namespace mxl::client;

namespace
{
    constexpr char const* admissionFlowFile = "v210_1080p59.94.json";
    // Its grains' slices: one per line.
    constexpr std::uint16_t admissionSlices = 1080;
    auto const loopback = tcpLoopback();

    mxlFabricsAdmissionCounters countersOf(TargetEnd const& target)
    {
        mxlFabricsAdmissionCounters counters{};
        REQUIRE(mxlFabricsTargetGetAdmissionCounters(target.target, &counters) == MXL_STATUS_OK);
        return counters;
    }

    std::string optionFailure(char const* options)
    {
        try
        {
            static_cast<void>(mxl::fabrics::SetupOptions::parse(options));
        }
        catch (mxl::Error const& e)
        {
            CHECK(e.status() == MXL_ERR_INVALID_ARG);
            return e.what();
        }
        FAIL("accepted: ", options);
        return {};
    }

    // Grains 1..count written with `seed`, transferred whole, and read back at the target with the source's checksum.
    void moveIntact(Link& link, std::uint64_t count, std::uint32_t seed)
    {
        for (std::uint64_t index = 1; index <= count; ++index)
        {
            auto const checksum = writeGrain(link.source, index, seed);
            link.transfer(index, 0, admissionSlices);
            auto const arrived = readBack(link.destination, index);
            REQUIRE(arrived.has_value());
            CHECK(arrived->checksum == checksum);
        }
    }

    // Adds the target, then drives both ends, writing and offering grain 1, until the target refused `wanted` requests.
    mxlFabricsAdmissionCounters refuseRequests(LinkEnds& ends, std::uint64_t wanted)
    {
        REQUIRE(mxlFabricsInitiatorAddTarget(ends.initiator.initiator, ends.target.ticket) == MXL_STATUS_OK);
        // The initiator retries with back-off (100 ms doubling), each attempt one request.
        auto const deadline = std::chrono::steady_clock::now() + 30s;
        while (countersOf(ends.target).refused < wanted && std::chrono::steady_clock::now() < deadline)
        {
            static_cast<void>(writeGrain(ends.source, 1, 24));
            static_cast<void>(mxlFabricsInitiatorTransferGrain(ends.initiator.initiator, 1, 0, admissionSlices));
            static_cast<void>(settle(ends.initiator, {&ends.target}, 50ms));
        }
        return countersOf(ends.target);
    }

    std::string base64Of32(char fill)
    {
        return mxl::encodeBase64(std::string(32, fill));
    }

    // A ticket key file (mode 0600) of key `id` whose 32 secret bytes are `fill`.
    std::string keyFile(TempDomain const& directory, std::string const& id, char fill)
    {
        auto const path = directory.path() / (id + ".key");
        static_cast<void>(writeSecretFile(path, fmt::format(R"({{"id": "{}", "key": "{}"}})", id, base64Of32(fill))));
        return path.string();
    }
}

TEST_CASE("admission: a tcp target admits an initiator in allowInitiators, which moves grains intact")
{
    FlowOptions options;
    options.targetSetup = R"({"allowInitiators": ["2001:db8::/32", "127.0.0.0/8"]})";
    LinkEnds probe{loopback, admissionFlowFile, "adm-probe", std::nullopt, std::nullopt, options};
    if (backendOf(probe.targetDomain.fabrics) != "ofi")
    {
        CHECK(probe.target.setupStatus == MXL_ERR_INVALID_ARG);
        MXL_SKIP("the ucx backend's targets receive no connection requests (initiators reach the worker by its address): "
                 "allowInitiators is refused at setup there, as this case just checked");
    }
    Link link{loopback, admissionFlowFile, std::nullopt, std::nullopt, options};
    moveIntact(link, 4, 24);
    auto const counters = countersOf(link.target);
    CHECK(counters.admitted == 1);
    CHECK(counters.refused == 0);
    CHECK(counters.refusedAddresses == 0);
}

TEST_CASE("admission: an initiator outside allowInitiators is refused at every attempt, logged once, and reaches no memory")
{
    FlowOptions options;
    options.targetSetup = R"({"allowInitiators": ["127.0.0.2"]})";
    LogCapture log;
    LinkEnds ends{loopback, admissionFlowFile, "adm-refused", std::nullopt, std::nullopt, options};
    if (backendOf(ends.targetDomain.fabrics) != "ofi")
    {
        static_cast<void>(log.text());
        MXL_SKIP("the ucx backend's targets receive no connection requests: see the case above");
    }
    REQUIRE(ends.target.setupStatus == MXL_STATUS_OK);
    auto const counters = refuseRequests(ends, 3);
    auto const state = ends.initiator.state(ends.target);
    auto const text = log.text();
    INFO("log:\n", text);
    CHECK(counters.refused >= 3);
    CHECK(counters.admitted == 0);
    CHECK(counters.refusedAddresses == 1);
    CHECK(state != MXL_FABRICS_TARGET_CONNECTED);
    CHECK(occurrences(text, "refused the connection of 127.0.0.1: not in allowInitiators (127.0.0.2/32)") == 1);

    // Nothing arrived: the target's flow has no grain.
    mxlFlowRuntimeInfo runtime{};
    REQUIRE(mxlFlowReaderGetRuntimeInfo(ends.destination.reader, &runtime) == MXL_STATUS_OK);
    CHECK(runtime.headIndex == 0);
}

TEST_CASE("admission: a target that receives no connection requests refuses allowInitiators at setup")
{
    FlowOptions options;
    options.targetSetup = R"({"allowInitiators": ["127.0.0.1"]})";
    LogCapture log;
    LinkEnds ends{shmTransport(), admissionFlowFile, "adm-shm", std::nullopt, std::nullopt, options};
    auto const text = log.text();
    INFO("log:\n", text);
    CHECK(ends.target.setupStatus == MXL_ERR_INVALID_ARG);
    CHECK(text.find("option allowInitiators: a shm target of the ") != std::string::npos);
    CHECK(text.find("receives no connection requests to screen") != std::string::npos);
}

TEST_CASE("admission: allowInitiators must be a non-empty array of addresses and prefixes, each named when wrong")
{
    using mxl::fabrics::SetupOptions;
    auto const parsed = SetupOptions::parse(R"({"allowInitiators": ["198.51.100.0/24", "192.0.2.7", "::ffff:0:0/96"]})");
    REQUIRE(parsed.allowInitiators.has_value());
    REQUIRE(parsed.allowInitiators->size() == 3);
    CHECK((*parsed.allowInitiators)[0].text() == "198.51.100.0/24");
    CHECK((*parsed.allowInitiators)[1].text() == "192.0.2.7/32");
    CHECK(!SetupOptions::parse(R"({"cqDepth": 8})").allowInitiators.has_value());

    CHECK(optionFailure(R"({"allowInitiators": []})").starts_with("option allowInitiators must be a non-empty array"));
    CHECK(optionFailure(R"({"allowInitiators": "198.51.100.0/24"})").starts_with("option allowInitiators must be a non-empty array"));
    CHECK(optionFailure(R"({"allowInitiators": [5]})") == "option allowInitiators: 5 is not a string naming an address or prefix");
    CHECK(optionFailure(R"({"allowInitiators": ["192.0.2.7", "host.example"]})") ==
          "option allowInitiators: 'host.example' is not an IPv4 or IPv6 address (with an optional /prefix length)");
    CHECK(optionFailure(R"({"allowInitiators": ["198.51.100.7/24"]})") ==
          "option allowInitiators: '198.51.100.7/24' has bits set past its /24 prefix: write 198.51.100.0/24 for the subnet, or the "
          "address alone for the host");
    CHECK(optionFailure(R"({"allowInitiators": ["198.51.100.0/33"]})") ==
          "option allowInitiators: '198.51.100.0/33': the prefix length must be a number from 0 to 32");
}

TEST_CASE("admission: a backend of ABI 1.3 (a table without target_screen_connections) cannot screen, and setup says so")
{
    std::string path;
    // The ofi backend as a 1.3 build would present it: its table ends before target_screen_connections.
    auto older = backendTable("ofi", path);
    older.abiVersion = (1u << 16) | 3u;
    older.structSize = MXL_FABRICS_BACKEND_TABLE_1_3_SIZE;
    auto const backend13 = mxl::fabrics::tableBackend(older, {"ofi", path, older.abiVersion});

    FlowDomain domain{"adm-abi13", std::nullopt};
    Flow flow{domain, flowDefinition(admissionFlowFile), nullptr};
    mxlFabricsTargetConfig config{};
    config.version = MXL_FABRICS_API_VERSION;
    config.interface = interfaceConfig(MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", nullptr);
    config.writer = flow.writer;
    mxl::fabrics::Target target{*backend13};
    try
    {
        target.setup(config, R"({"allowInitiators": ["127.0.0.1"]})");
        FAIL("a 1.3 backend's target was set up with allowInitiators");
    }
    catch (mxl::Error const& e)
    {
        CHECK(e.status() == MXL_ERR_UNSUPPORTED_OPERATION);
        CHECK(std::string{e.what()} ==
              "the ofi backend implements backend ABI 1.3: its targets admit every connection request (screening them takes 1.4)");
    }
    // Without the option it sets up as before.
    target.setup(config, nullptr);
    CHECK(target.ticket().regions.size() > 0);
}

TEST_CASE("admission: with admissionKeyFile only initiators that prove the ticket key connect, and others are refused by name")
{
    TempDomain keys{"adm-keys"};
    auto const key = keyFile(keys, "2026-11", 'k');
    auto const otherKey = keyFile(keys, "studio-b", 'x');
    auto const targetOptions = fmt::format(R"({{"admissionKeyFile": "{}"}})", key);
    auto const proving = fmt::format(R"({{"admissionKeyFile": "{}"}})", key);
    auto const provingOther = fmt::format(R"({{"admissionKeyFile": "{}"}})", otherKey);

    FlowOptions options;
    options.targetSetup = targetOptions.c_str();
    options.initiatorSetup = proving.c_str();
    LinkEnds probe{loopback, admissionFlowFile, "adm-key-probe", std::nullopt, std::nullopt, options};
    if (backendOf(probe.targetDomain.fabrics) != "ofi")
    {
        CHECK(probe.target.setupStatus == MXL_ERR_INVALID_ARG);
        MXL_SKIP("the ucx backend's targets receive no connection requests: admissionKeyFile is refused at setup there");
    }
    {
        Link link{loopback, admissionFlowFile, std::nullopt, std::nullopt, options};
        moveIntact(link, 3, 31);
        CHECK(countersOf(link.target).admitted == 1);
        CHECK(countersOf(link.target).refused == 0);
    }

    for (auto const& [initiatorOptions, why] :
         {std::pair<char const*, std::string>{nullptr, "its connection request carries no proof of the ticket key"},
          std::pair<char const*, std::string>{provingOther.c_str(), "its proof is made with key 'studio-b', which is not this target's key "
                                                                    "'2026-11'"}})
    {
        CAPTURE(why);
        FlowOptions refusedOptions;
        refusedOptions.targetSetup = targetOptions.c_str();
        refusedOptions.initiatorSetup = initiatorOptions;
        LogCapture log;
        LinkEnds ends{loopback, admissionFlowFile, "adm-key-refused", std::nullopt, std::nullopt, refusedOptions};
        REQUIRE(ends.target.setupStatus == MXL_STATUS_OK);
        auto const counters = refuseRequests(ends, 2);
        auto const text = log.text();
        INFO("log:\n", text);
        CHECK(counters.refused >= 2);
        CHECK(counters.admitted == 0);
        CHECK(ends.initiator.state(ends.target) != MXL_FABRICS_TARGET_CONNECTED);
        CHECK(occurrences(text, "refused the connection of 127.0.0.1: " + why) == 1);
        mxlFlowRuntimeInfo runtime{};
        REQUIRE(mxlFlowReaderGetRuntimeInfo(ends.destination.reader, &runtime) == MXL_STATUS_OK);
        CHECK(runtime.headIndex == 0);
    }
}

TEST_CASE("admission: an initiator holding the ticket of an earlier target at the same address and port is refused naming both "
          "incarnations, and the current ticket connects")
{
    FlowOptions options;
    options.initiatorSetup = R"({"incarnationMark": true})";
    LinkEnds ends{loopback, admissionFlowFile, "adm-stale", std::nullopt, std::nullopt, options};
    if (backendOf(ends.targetDomain.fabrics) != "ofi")
    {
        MXL_SKIP("the ucx backend's targets receive no connection requests: a new target has a new worker address");
    }
    FlowDomain domain{"adm-stale-target", std::nullopt};
    Flow flow{domain, flowDefinition(admissionFlowFile), nullptr};
    auto const port = std::to_string(freeLoopbackPort());
    auto const interface = interfaceConfig(MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", port.c_str());
    std::string staleText;
    {
        TargetEnd earlier{domain, flow, interface};
        REQUIRE(earlier.setupStatus == MXL_STATUS_OK);
        staleText = ticketText(earlier.ticket);
    }
    TargetEnd current{domain, flow, interface};
    REQUIRE(current.setupStatus == MXL_STATUS_OK);
    mxlFabricsTargetInfo stale = nullptr;
    REQUIRE(mxlFabricsTargetInfoFromString(staleText.c_str(), &stale) == MXL_STATUS_OK);

    LogCapture log;
    REQUIRE(mxlFabricsInitiatorAddTarget(ends.initiator.initiator, stale) == MXL_STATUS_OK);
    auto const deadline = std::chrono::steady_clock::now() + 30s;
    while (countersOf(current).refused < 2 && std::chrono::steady_clock::now() < deadline)
    {
        static_cast<void>(writeGrain(ends.source, 1, 24));
        static_cast<void>(mxlFabricsInitiatorTransferGrain(ends.initiator.initiator, 1, 0, admissionSlices));
        static_cast<void>(settle(ends.initiator, {&current}, 50ms));
    }
    auto const text = log.text();
    INFO("log:\n", text);
    CHECK(countersOf(current).refused >= 2);
    CHECK(countersOf(current).admitted == 0);
    CHECK(occurrences(text, "refused the connection of 127.0.0.1: it holds the ticket of another target at this address") == 1);
    mxlFlowRuntimeInfo runtime{};
    REQUIRE(mxlFlowReaderGetRuntimeInfo(flow.reader, &runtime) == MXL_STATUS_OK);
    CHECK(runtime.headIndex == 0);

    // The current target's own ticket connects, and grains arrive intact.
    REQUIRE(mxlFabricsInitiatorRemoveTarget(ends.initiator.initiator, stale) == MXL_STATUS_OK);
    REQUIRE(mxlFabricsFreeTargetInfo(stale) == MXL_STATUS_OK);
    REQUIRE(mxlFabricsInitiatorAddTarget(ends.initiator.initiator, current.ticket) == MXL_STATUS_OK);
    // Connected before the first transfer, and each grain sent once: a transfer reaches connected targets only, and one
    // repeated while the first is still in flight (a loaded machine) overwrites a grain the target then rightly reports
    // lost.
    REQUIRE(settle(ends.initiator, {&current}, 30s) == MXL_STATUS_OK);
    for (std::uint64_t index = 1; index <= 3; ++index)
    {
        auto const checksum = writeGrain(ends.source, index, 32);
        REQUIRE(mxlFabricsInitiatorTransferGrain(ends.initiator.initiator, index, 0, admissionSlices) == MXL_STATUS_OK);
        std::optional<ReadBack> arrived;
        auto const until = std::chrono::steady_clock::now() + 30s;
        while (!arrived && std::chrono::steady_clock::now() < until)
        {
            static_cast<void>(settle(ends.initiator, {&current}, 50ms));
            arrived = readBack(flow, index);
        }
        REQUIRE(arrived.has_value());
        CHECK(arrived->checksum == checksum);
    }
    CHECK(countersOf(current).admitted == 1);
}

TEST_CASE("admission: admissionKeyFile must name a usable key file")
{
    TempDomain keys{"adm-badkey"};
    auto const loose = keys.path() / "loose.key";
    static_cast<void>(writeSecretFile(loose, fmt::format(R"({{"id": "a", "key": "{}"}})", base64Of32('k'))));
    std::filesystem::permissions(loose, std::filesystem::perms::owner_read | std::filesystem::perms::group_read |
                                            std::filesystem::perms::others_read);
    auto const text = optionFailure(fmt::format(R"({{"admissionKeyFile": "{}"}})", loose.string()).c_str());
    CHECK(text.starts_with("option admissionKeyFile: "));
    CHECK(text.find("loose.key") != std::string::npos);
    INFO(text);
    CHECK(text.find("mode 0444") != std::string::npos);
    CHECK(optionFailure(R"({"admissionKeyFile": 7})") == "option admissionKeyFile must be the path of a ticket key file, not 7");
    CHECK(optionFailure(R"({"incarnationMark": "yes"})") == "option incarnationMark must be true or false, not \"yes\"");
    CHECK(mxl::fabrics::SetupOptions::parse(R"({"incarnationMark": true})").incarnationMark);
    CHECK_FALSE(mxl::fabrics::SetupOptions::parse(nullptr).incarnationMark);
}

TEST_CASE("admission: an incarnation mark names the target id and epoch, and no mark or a mark without an epoch passes")
{
    using mxl::fabrics::incarnationMark;
    using mxl::fabrics::incarnationProblem;
    auto const mark = incarnationMark(7, 9);
    CHECK(mark.size() == 21);
    CHECK(incarnationProblem(mark, 7, 9).empty());
    CHECK(incarnationProblem(incarnationMark(7, 0), 7, 9).empty());
    CHECK(incarnationProblem({}, 7, 9).empty());
    CHECK(incarnationProblem(mark, 7, 10) ==
          "it holds the ticket of another target at this address (id 7, epoch 9; this one is id 7, epoch 10): a stale ticket");
    CHECK_FALSE(incarnationProblem(incarnationMark(8, 0), 7, 9).empty());
    std::vector<std::uint8_t> const cut(mark.begin(), mark.begin() + 10);
    CHECK(incarnationProblem(cut, 7, 9) == "its connection request names an incarnation in a form this target does not read");
}

TEST_CASE("admission: one address refused for two reasons is logged once for each, and counted as one address")
{
    sockaddr_in peer{};
    peer.sin_family = AF_INET;
    peer.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    std::span<std::uint8_t const> const address{reinterpret_cast<std::uint8_t const*>(&peer), sizeof(peer)};
    auto const staleMark = mxl::fabrics::incarnationMark(7, 9);

    LogCapture log;
    mxl::fabrics::InitiatorAdmission admission;
    admission.allow(std::vector{mxl::AddressPrefix::parse("127.0.0.2")}, std::nullopt, 7, 9);
    CHECK_FALSE(admission.admit({address, {}}));
    CHECK_FALSE(admission.admit({address, {}}));
    // The target rebuilt without the address rule: the same peer now holds the ticket of its last epoch.
    admission.allow(std::nullopt, std::nullopt, 7, 10);
    CHECK_FALSE(admission.admit({address, staleMark}));
    CHECK_FALSE(admission.admit({address, staleMark}));
    CHECK(admission.admit({address, mxl::fabrics::incarnationMark(7, 10)}));

    auto const text = log.text();
    INFO("log:\n", text);
    CHECK(occurrences(text, "refused the connection of 127.0.0.1: not in allowInitiators (127.0.0.2/32)") == 1);
    CHECK(occurrences(text, "refused the connection of 127.0.0.1: it holds the ticket of another target at this address (id 7, epoch 9") ==
          1);
    auto const counters = admission.counters();
    CHECK(counters.refused == 4);
    CHECK(counters.admitted == 1);
    CHECK(counters.refusedAddresses == 1);
}

TEST_CASE("connection counters: a tcp target counts its one connected initiator, and a struct too small or absent is INVALID_ARG")
{
    Link link{loopback, admissionFlowFile, std::nullopt, std::nullopt, FlowOptions{}};
    moveIntact(link, 4, 24);
    mxlFabricsConnectionCounters counters{};
    counters.structSize = sizeof counters;
    REQUIRE(mxlFabricsTargetGetConnectionCounters(link.target.target, &counters) == MXL_STATUS_OK);
    CHECK(counters.structSize == 24);
    CHECK(counters.joinedWhileConnected == 0);
    // Transports without connections (ucx) report none.
    CHECK(counters.connected == (backendOf(link.targetDomain.fabrics) == "ofi" ? 1U : 0U));

    mxlFabricsConnectionCounters tooSmall{};
    tooSmall.structSize = 16;
    CHECK(mxlFabricsTargetGetConnectionCounters(link.target.target, &tooSmall) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFabricsTargetGetConnectionCounters(link.target.target, nullptr) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFabricsTargetGetConnectionCounters(nullptr, &counters) == MXL_ERR_INVALID_ARG);
}

TEST_CASE("admission: a peer that varies what its refusal quotes is logged for four reasons at most")
{
    sockaddr_in peer{};
    peer.sin_family = AF_INET;
    peer.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    std::span<std::uint8_t const> const address{reinterpret_cast<std::uint8_t const*>(&peer), sizeof(peer)};
    LogCapture log;
    mxl::fabrics::InitiatorAdmission admission;
    admission.allow(std::nullopt, std::nullopt, 7, 100);
    // Each request names another stale epoch, so each refusal's text differs.
    for (std::uint64_t epoch = 1; epoch <= 20; ++epoch)
    {
        CHECK_FALSE(admission.admit({address, mxl::fabrics::incarnationMark(7, epoch)}));
    }
    auto const text = log.text();
    INFO("log:\n", text);
    CHECK(occurrences(text, "refused the connection of 127.0.0.1: ") == 4);
    CHECK(occurrences(text, "further requests for any reason are refused without a log line") == 1);
    CHECK(admission.counters().refused == 20);
}
