// Grains moved between a target and an initiator in one process: full grains of every discrete format, slice ranges,
// invalid grains, rings of different sizes, fan-out, and targets that go away and come back.
#include "FabricsHarness.hpp"
#include "Link.hpp"
#include "Skip.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <vector>

using namespace mxl::test;
using namespace mxl::test::fabrics;
using namespace std::chrono_literals;

namespace
{
    std::uint16_t totalSlices(Flow& flow)
    {
        mxlGrainInfo info;
        REQUIRE(mxlFlowWriterGetGrainInfo(flow.writer, 0, &info) == MXL_STATUS_OK);
        return info.totalSlices;
    }

    void checkFullGrains(Transport const& transport, std::string const& flowFile, std::uint64_t count)
    {
        CAPTURE(transport.label);
        CAPTURE(flowFile);
        Link link{transport, flowFile};
        auto const slices = totalSlices(link.source);
        std::uint64_t const first = 5000;
        for (auto index = first; index < first + count; ++index)
        {
            CAPTURE(index);
            auto const checksum = writeGrain(link.source, index, static_cast<std::uint32_t>(flowFile.size()));
            link.transfer(index, 0, slices);
            auto const arrived = readBack(link.destination, index);
            REQUIRE(arrived.has_value());
            CHECK(arrived->info.index == index);
            CHECK(arrived->info.validSlices == slices);
            CHECK(arrived->info.flags == 0);
            CHECK(arrived->checksum == checksum);
        }
    }
}

TEST_CASE("transfer: full v210, v210a and smpte291 grains arrive byte for byte")
{
    for (auto const& transport : transports())
    {
        checkFullGrains(transport, "v210_1080p59.94.json", 36);
        checkFullGrains(transport, "v210a_1080p59.94.json", 24);
        checkFullGrains(transport, "smpte291_59.94.json", 48);
    }
}

TEST_CASE("transfer: single slices and blocks of slices, both planes of v210a")
{
    auto const all = transports();
    for (auto const& transport : all)
    {
        // v210 (one plane) once; v210a (two planes, the reference's old blind spot) everywhere.
        auto const flowFiles = &transport == &all.front() ? std::vector<char const*>{"v210_1080p59.94.json", "v210a_1080p59.94.json"}
                                                          : std::vector<char const*>{"v210a_1080p59.94.json"};
        for (auto const* flowFile : flowFiles)
        {
            CAPTURE(transport.label);
            CAPTURE(flowFile);
            Link link{transport, flowFile};
            auto const slices = totalSlices(link.source);
            auto const fillBytes = link.source.config.discrete.sliceSizes[0];
            auto const keyBytes = link.source.config.discrete.sliceSizes[1];
            std::uint64_t index = 140;

            // Paints slice s of the source grain (both planes) and commits s + 1 slices.
            auto const paint = [&](std::uint64_t grain, std::uint16_t slice)
            {
                mxlGrainInfo info;
                std::uint8_t* payload = nullptr;
                REQUIRE(mxlFlowWriterOpenGrain(link.source.writer, grain, &info, &payload) == MXL_STATUS_OK);
                std::memset(payload + std::size_t{slice} * fillBytes, 0xAC & ~slice, fillBytes);
                if (keyBytes != 0)
                {
                    std::memset(payload + std::size_t{slices} * fillBytes + std::size_t{slice} * keyBytes, 0xAB & ~slice, keyBytes);
                }
                info.validSlices = static_cast<std::uint16_t>(slice + 1);
                REQUIRE(mxlFlowWriterCommitGrain(link.source.writer, &info) == MXL_STATUS_OK);
            };
            auto const checkSlice = [&](std::uint64_t grain, std::uint16_t slice, std::uint16_t validSlices)
            {
                CAPTURE(slice);
                auto const arrived = readBack(link.destination, grain, validSlices);
                REQUIRE(arrived.has_value());
                CHECK(arrived->info.index == grain);
                CHECK(arrived->info.validSlices == validSlices);
                auto const* fill = arrived->payload + std::size_t{slice} * fillBytes;
                CHECK(std::all_of(fill, fill + fillBytes, [&](std::uint8_t b) { return b == static_cast<std::uint8_t>(0xAC & ~slice); }));
                if (keyBytes != 0)
                {
                    auto const* key = arrived->payload + std::size_t{slices} * fillBytes + std::size_t{slice} * keyBytes;
                    CHECK(std::all_of(key, key + keyBytes, [&](std::uint8_t b) { return b == static_cast<std::uint8_t>(0xAB & ~slice); }));
                }
            };

            // Single slices: the first carries the header, the others only their own lines ("Slice transfer single"
            // of the SDK's lib/tests/fabrics/test_sliced.cpp sends [0, s + 1) every time; [s, s + 1) also covers the
            // header-less path).
            writeGrain(link.source, index, 1);
            for (std::uint16_t slice = 0; slice < slices;
                 slice = static_cast<std::uint16_t>(slice < 24 || slice + 24 > slices ? slice + 1 : slice + 97))
            {
                paint(index, slice);
                link.transfer(index, slice, static_cast<std::uint16_t>(slice + 1));
                checkSlice(index, slice, static_cast<std::uint16_t>(slice + 1));
            }

            // Blocks from slice 0 (as the SDK's "Slice transfer blocks"), each checked at its middle slice.
            for (std::uint16_t const block : std::initializer_list<std::uint16_t>{2, 13, 73, 720})
            {
                CAPTURE(block);
                ++index;
                writeGrain(link.source, index, block);
                for (std::uint32_t start = 0; start < slices; start += block)
                {
                    // Blocks of 2 from slice 0 resend the whole grain each time: cover both ends of the grain only.
                    if (block == 2 && start >= 40 && start + 40 < slices)
                    {
                        continue;
                    }
                    auto const end = static_cast<std::uint16_t>(std::min<std::uint32_t>(start + block, slices));
                    auto const middle = static_cast<std::uint16_t>((start + end) / 2);
                    paint(index, middle);
                    link.transfer(index, 0, end);
                    checkSlice(index, middle, end);
                }
            }
        }
    }
}

TEST_CASE("transfer: an invalid grain is a header-only transfer (0, 0)")
{
    for (auto const& transport : transports())
    {
        CAPTURE(transport.label);
        Link link{transport, "v210_1080p59.94.json"};
        for (std::uint64_t index = 700; index < 704; ++index)
        {
            writeGrain(link.source, index, 3, MXL_GRAIN_FLAG_INVALID);
            link.transfer(index, 0, 0);
            auto const arrived = readBack(link.destination, index, MXL_GRAIN_VALID_SLICES_ANY);
            REQUIRE(arrived.has_value());
            CHECK(arrived->info.index == index);
            CHECK(arrived->info.validSlices == 0);
            CHECK((arrived->info.flags & MXL_GRAIN_FLAG_INVALID) != 0);
        }
        CHECK(mxlFabricsInitiatorTransferGrain(link.initiator.initiator, 704, 3, 2) == MXL_ERR_INVALID_ARG);
        CHECK(mxlFabricsInitiatorTransferGrain(link.initiator.initiator, 704, 0, 1081) == MXL_ERR_INVALID_ARG);
    }
}

TEST_CASE("transfer: rings of different sizes at the two ends")
{
    for (auto const& transport : transports())
    {
        for (auto const& [sourceHistory, targetHistory] :
             {std::pair{400'000'000ULL, 100'000'000ULL}, std::pair{100'000'000ULL, 400'000'000ULL}})
        {
            CAPTURE(transport.label);
            CAPTURE(sourceHistory);
            Link link{transport, "smpte291_59.94.json", sourceHistory, targetHistory};
            CHECK(link.source.config.discrete.grainCount != link.destination.config.discrete.grainCount);
            for (std::uint64_t index = 9000; index < 9060; ++index)
            {
                auto const checksum = writeGrain(link.source, index, 9);
                link.transfer(index, 0, 4096);
                auto const arrived = readBack(link.destination, index);
                REQUIRE(arrived.has_value());
                CHECK(arrived->info.index == index);
                CHECK(arrived->checksum == checksum);
            }
        }
    }
}

TEST_CASE("transfer: a grain size mismatch is refused at AddTarget")
{
    FlowDomain sourceDomain{"fab-src"};
    FlowDomain targetDomain{"fab-dst"};
    Flow source{sourceDomain, flowDefinition("v210_2160p59.94.json")};
    Flow destination{targetDomain, flowDefinition("v210_1080p59.94.json")};
    TargetEnd target{targetDomain, destination, interfaceConfig(MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", nullptr)};
    REQUIRE(target.setupStatus == MXL_STATUS_OK);
    InitiatorEnd initiator{sourceDomain, source, interfaceConfig(MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", nullptr)};
    CHECK(mxlFabricsInitiatorAddTarget(initiator.initiator, target.ticket) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFabricsInitiatorRemoveTarget(initiator.initiator, target.ticket) == MXL_ERR_NOT_FOUND);
}

namespace
{
    // Two targets (own domains) fed by one initiator.
    struct FanOut
    {
        explicit FanOut(Transport const& transport)
            : sourceDomain{"fab-src"}
            , domainA{"fab-dsta"}
            , domainB{"fab-dstb"}
            , source{sourceDomain, flowDefinition("v210_1080p59.94.json")}
            , flowA{domainA, flowDefinition("v210_1080p59.94.json")}
            , flowB{domainB, flowDefinition("v210_1080p59.94.json")}
            , targetA{domainA, flowA, interfaceConfig(transport.provider, nodeFor(transport), nullptr)}
            , targetB{domainB, flowB, interfaceConfig(transport.provider, nodeFor(transport), nullptr)}
            , initiator{sourceDomain, source, interfaceConfig(transport.provider, initiatorNodeFor(transport), nullptr)}
        {
            REQUIRE(targetA.setupStatus == MXL_STATUS_OK);
            REQUIRE(targetB.setupStatus == MXL_STATUS_OK);
            REQUIRE(mxlFabricsInitiatorAddTarget(initiator.initiator, targetA.ticket) == MXL_STATUS_OK);
            REQUIRE(mxlFabricsInitiatorAddTarget(initiator.initiator, targetB.ticket) == MXL_STATUS_OK);
            CHECK(mxlFabricsInitiatorAddTarget(initiator.initiator, targetB.ticket) == MXL_ERR_EXISTS);
            REQUIRE(settle(initiator, {&targetA, &targetB}, 5s) == MXL_STATUS_OK);
        }

        // Writes grain `index` (pattern `seed`), moves it whole to both targets and waits until both have it; returns its
        // checksum.
        std::uint64_t sendToBoth(std::uint64_t index, std::uint32_t seed)
        {
            auto const checksum = writeGrain(source, index, seed);
            REQUIRE(mxlFabricsInitiatorTransferGrain(initiator.initiator, index, 0, 1080) == MXL_STATUS_OK);
            CHECK(receive(initiator, targetA, 5s) == index);
            CHECK(receive(initiator, targetB, 5s) == index);
            REQUIRE(settle(initiator, {&targetA, &targetB}, 5s) == MXL_STATUS_OK);
            return checksum;
        }

        static char const* nodeFor(Transport const& transport)
        {
            return transport.provider == MXL_FABRICS_PROVIDER_SHM ? nullptr : transport.targetNode.c_str();
        }

        static char const* initiatorNodeFor(Transport const& transport)
        {
            return transport.initiatorNode.empty() ? nullptr : transport.initiatorNode.c_str();
        }

        FlowDomain sourceDomain;
        FlowDomain domainA;
        FlowDomain domainB;
        Flow source;
        Flow flowA;
        Flow flowB;
        TargetEnd targetA;
        TargetEnd targetB;
        InitiatorEnd initiator;
    };
}

TEST_CASE("transfer: one initiator feeds two targets")
{
    for (auto const& transport : transports())
    {
        CAPTURE(transport.label);
        FanOut fan{transport};
        for (std::uint64_t index = 300; index < 312; ++index)
        {
            auto const checksum = fan.sendToBoth(index, 4);
            CHECK(readBack(fan.flowA, index)->checksum == checksum);
            CHECK(readBack(fan.flowB, index)->checksum == checksum);
        }
    }
}

TEST_CASE("transfer: a target destroyed mid-stream is reported and the other target carries on (tcp)")
{
    auto const transport = tcpLoopback();
    FanOut fan{transport};
    auto const checksum = writeGrain(fan.source, 400, 5);
    REQUIRE(mxlFabricsInitiatorTransferGrain(fan.initiator.initiator, 400, 0, 1080) == MXL_STATUS_OK);
    CHECK(receive(fan.initiator, fan.targetA, 5s) == 400);
    CHECK(receive(fan.initiator, fan.targetB, 5s) == 400);
    CHECK(readBack(fan.flowA, 400)->checksum == checksum);

    auto* ticketB = fan.targetB.ticket;
    mxlFabricsTargetInfo keptTicket = nullptr;
    REQUIRE(mxlFabricsTargetInfoFromString(ticketText(ticketB).c_str(), &keptTicket) == MXL_STATUS_OK);
    REQUIRE(mxlFabricsDestroyTarget(fan.domainB.fabrics, fan.targetB.target) == MXL_STATUS_OK);
    fan.targetB.target = nullptr;

    // The loss surfaces once as a status, then the initiator reports OK for the remaining target.
    auto sawLoss = false;
    auto const deadline = std::chrono::steady_clock::now() + 5s;
    mxlFabricsTargetState state = MXL_FABRICS_TARGET_CONNECTED;
    while (std::chrono::steady_clock::now() < deadline && state == MXL_FABRICS_TARGET_CONNECTED)
    {
        static_cast<void>(fan.targetA.read(0ms));
        auto const status = mxlFabricsInitiatorMakeProgressBlocking(fan.initiator.initiator, 5);
        sawLoss = sawLoss || status == MXL_ERR_INTERRUPTED;
        REQUIRE(mxlFabricsInitiatorGetTargetState(fan.initiator.initiator, keptTicket, &state, nullptr, nullptr) == MXL_STATUS_OK);
    }
    CHECK(state == MXL_FABRICS_TARGET_DISCONNECTED);
    std::size_t size = 0;
    REQUIRE(mxlFabricsInitiatorGetTargetState(fan.initiator.initiator, keptTicket, &state, nullptr, &size) == MXL_STATUS_OK);
    std::string reason(size, '\0');
    REQUIRE(mxlFabricsInitiatorGetTargetState(fan.initiator.initiator, keptTicket, &state, reason.data(), &size) == MXL_STATUS_OK);
    MESSAGE("reason: " << reason);
    CHECK(size > 1);
    sawLoss = sawLoss || settle(fan.initiator, {&fan.targetA}, 2s) == MXL_ERR_INTERRUPTED;
    CHECK(sawLoss);

    for (std::uint64_t index = 401; index < 411; ++index)
    {
        auto const grainChecksum = writeGrain(fan.source, index, 6);
        REQUIRE(mxlFabricsInitiatorTransferGrain(fan.initiator.initiator, index, 0, 1080) == MXL_STATUS_OK);
        CHECK(receive(fan.initiator, fan.targetA, 5s) == index);
        CHECK(settle(fan.initiator, {&fan.targetA}, 5s) == MXL_STATUS_OK);
        CHECK(readBack(fan.flowA, index)->checksum == grainChecksum);
    }
    CHECK(mxlFabricsInitiatorRemoveTarget(fan.initiator.initiator, keptTicket) == MXL_STATUS_OK);
    CHECK(mxlFabricsFreeTargetInfo(keptTicket) == MXL_STATUS_OK);
}

TEST_CASE("transfer: the initiator reconnects to a target that comes back on the same address, and a target takes a new initiator")
{
    auto const port = std::to_string(freeLoopbackPort());
    FlowDomain sourceDomain{"fab-src"};
    FlowDomain targetDomain{"fab-dst"};
    Flow source{sourceDomain, flowDefinition("smpte291_59.94.json")};
    Flow destination{targetDomain, flowDefinition("smpte291_59.94.json")};
    auto const interface = interfaceConfig(MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", port.c_str());

    if (backendOf(targetDomain.fabrics) == "ucx")
    {
        MXL_SKIP("a ucx target's address is its worker's address, new for every target (the service port is not used), so no "
                 "target comes back on the same address");
    }
    auto first = std::make_unique<TargetEnd>(targetDomain, destination, interface);
    REQUIRE(first->setupStatus == MXL_STATUS_OK);
    auto const firstTicket = ticketText(first->ticket);

    {
        // A first initiator connects and leaves: the target must take the next one.
        InitiatorEnd leaving{sourceDomain, source, interfaceConfig(MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", nullptr)};
        REQUIRE(mxlFabricsInitiatorAddTarget(leaving.initiator, first->ticket) == MXL_STATUS_OK);
        REQUIRE(settle(leaving, {first.get()}, 5s) == MXL_STATUS_OK);
        REQUIRE(mxlFabricsInitiatorRemoveTarget(leaving.initiator, first->ticket) == MXL_STATUS_OK);
        CHECK(mxlFabricsInitiatorMakeProgressNonBlocking(leaving.initiator) == MXL_ERR_INTERRUPTED);
    }
    static_cast<void>(first->read(50ms));

    InitiatorEnd initiator{sourceDomain, source, interfaceConfig(MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", nullptr)};
    mxlFabricsTargetInfo ticket = nullptr;
    REQUIRE(mxlFabricsTargetInfoFromString(firstTicket.c_str(), &ticket) == MXL_STATUS_OK);
    REQUIRE(mxlFabricsInitiatorAddTarget(initiator.initiator, ticket) == MXL_STATUS_OK);
    mxlFabricsTargetState state{};
    REQUIRE(mxlFabricsInitiatorGetTargetState(initiator.initiator, ticket, &state, nullptr, nullptr) == MXL_STATUS_OK);
    CHECK(state == MXL_FABRICS_TARGET_NOT_CONNECTED);
    REQUIRE(settle(initiator, {first.get()}, 5s) == MXL_STATUS_OK);
    writeGrain(source, 100, 1);
    REQUIRE(mxlFabricsInitiatorTransferGrain(initiator.initiator, 100, 0, 4096) == MXL_STATUS_OK);
    CHECK(receive(initiator, *first, 5s) == 100);

    first.reset();
    auto const waitFor = [&](mxlFabricsTargetState wanted, TargetEnd* target)
    {
        auto const deadline = std::chrono::steady_clock::now() + 5s;
        while (std::chrono::steady_clock::now() < deadline)
        {
            if (target != nullptr)
            {
                static_cast<void>(target->read(0ms));
            }
            static_cast<void>(mxlFabricsInitiatorMakeProgressBlocking(initiator.initiator, 5));
            REQUIRE(mxlFabricsInitiatorGetTargetState(initiator.initiator, ticket, &state, nullptr, nullptr) == MXL_STATUS_OK);
            if (state == wanted)
            {
                return true;
            }
        }
        return false;
    };
    CHECK(waitFor(MXL_FABRICS_TARGET_DISCONNECTED, nullptr));

    TargetEnd second{targetDomain, destination, interface};
    REQUIRE(second.setupStatus == MXL_STATUS_OK);
    CHECK(waitFor(MXL_FABRICS_TARGET_CONNECTED, &second));

    // The old ticket's keys are only right if the new target's registrations got the same keys.
    auto const secondTicket = ticketText(second.ticket);
    auto const regionsOf = [](std::string const& json) { return nlohmann::json::parse(json.c_str()).at("regions"); };
    if (regionsOf(firstTicket) == regionsOf(secondTicket))
    {
        auto const checksum = writeGrain(source, 101, 2);
        REQUIRE(mxlFabricsInitiatorTransferGrain(initiator.initiator, 101, 0, 4096) == MXL_STATUS_OK);
        CHECK(receive(initiator, second, 5s) == 101);
        CHECK(readBack(destination, 101)->checksum == checksum);
    }
    else
    {
        MESSAGE("the new target registered with other keys: grains need its new ticket");
    }
    CHECK(mxlFabricsFreeTargetInfo(ticket) == MXL_STATUS_OK);
}

TEST_CASE("transfer: a target that stops progressing is skipped without holding back the other, and rejoins when it catches up (shm)")
{
    // shm completes a write only when the target's process progresses (it copies the payload itself), so not driving
    // target B is what a stopped or overloaded target process looks like to the initiator.
    Transport const transport = shmTransport();
    FanOut fan{transport};
    auto const counters = [&](TargetEnd const& target)
    {
        mxlFabricsTargetCounters result{};
        REQUIRE(mxlFabricsInitiatorGetTargetCounters(fan.initiator.initiator, target.ticket, &result) == MXL_STATUS_OK);
        return result;
    };

    // Fewer grains than the source ring holds: B's write reads the source slot only when B progresses, and by then a
    // longer run would have refilled it with a later grain (docs/fabrics.md, "Lagging targets"). The grains are written
    // and checked outside the transfer loop: B must not go a whole second (when it would count as gone) without a
    // completion, even on a slow build of a loaded machine.
    constexpr std::uint64_t first = 600;
    constexpr std::uint64_t grains = 8;
    REQUIRE(grains < fan.source.config.discrete.grainCount - 1);
    std::vector<std::uint64_t> checksums;
    for (auto index = first; index < first + grains; ++index)
    {
        checksums.push_back(writeGrain(fan.source, index, 7));
    }
    for (auto index = first; index < first + grains; ++index)
    {
        REQUIRE(mxlFabricsInitiatorTransferGrain(fan.initiator.initiator, index, 0, 1080) == MXL_STATUS_OK);
        CHECK(receive(fan.initiator, fan.targetA, 5s) == index);
        // OK although B still has a write in flight: a lagging target is not waited for.
        REQUIRE(settle(fan.initiator, {&fan.targetA}, 5s) == MXL_STATUS_OK);
    }
    auto const lagging = counters(fan.targetB);
    for (std::uint64_t i = 0; i < grains; ++i)
    {
        CHECK(readBack(fan.flowA, first + i)->checksum == checksums[i]);
    }
    CHECK(lagging.lagging == 1);
    // The first grain went out to B and waited; every later one skipped it.
    CHECK(lagging.transfersPosted == 1);
    CHECK(lagging.transfersSkipped == grains - 1);
    CHECK(counters(fan.targetA).transfersPosted == grains);
    CHECK(counters(fan.targetA).transfersSkipped == 0);
    CHECK(fan.initiator.state(fan.targetB) == MXL_FABRICS_TARGET_CONNECTED);

    // B progresses again: its write completes, and the next grain reaches it.
    CHECK(receive(fan.initiator, fan.targetB, 5s) == first);
    REQUIRE(settle(fan.initiator, {&fan.targetA, &fan.targetB}, 5s) == MXL_STATUS_OK);
    CHECK(readBack(fan.flowB, first)->checksum == checksums.front());
    CHECK(counters(fan.targetB).lagging == 0);
    auto const index = first + grains;
    auto const checksum = fan.sendToBoth(index, 8);
    CHECK(readBack(fan.flowB, index)->checksum == checksum);
    CHECK(counters(fan.targetB).transfersPosted == 2);
    CHECK(counters(fan.targetB).transfersSkipped == grains - 1);
}

TEST_CASE("transfer: a target that takes the connection and fails every write is tried again with back-off, not at once (tcp)")
{
    FlowDomain sourceDomain{"fab-src"};
    FlowDomain targetDomain{"fab-dst"};
    Flow source{sourceDomain, flowDefinition("smpte291_59.94.json")};
    Flow destination{targetDomain, flowDefinition("smpte291_59.94.json")};
    if (backendOf(targetDomain.fabrics) == "ucx")
    {
        MXL_SKIP("a ucx initiator makes no connection to a target (it reaches the target's worker by address)");
    }
    TargetEnd target{targetDomain, destination, interfaceConfig(MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", "0")};
    REQUIRE(target.setupStatus == MXL_STATUS_OK);
    // Every region's key wrong, as in an old ticket at an address a new incarnation holds: the connection is taken, and
    // the first write ends it.
    auto altered = nlohmann::json::parse(ticketText(target.ticket));
    for (auto& region : altered.at("regions"))
    {
        region["rkey"] = std::to_string(std::stoull(region.at("rkey").get<std::string>()) + 0x5a5a5a);
    }
    mxlFabricsTargetInfo wrongKeys = nullptr;
    REQUIRE(mxlFabricsTargetInfoFromString(altered.dump().c_str(), &wrongKeys) == MXL_STATUS_OK);
    InitiatorEnd initiator{sourceDomain, source, interfaceConfig(MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", nullptr)};
    REQUIRE(mxlFabricsInitiatorAddTarget(initiator.initiator, wrongKeys) == MXL_STATUS_OK);
    writeGrain(source, 100, 1);

    // A sender posting a grain whenever the target is connected, for 3 s.
    auto const until = std::chrono::steady_clock::now() + 3s;
    while (std::chrono::steady_clock::now() < until)
    {
        static_cast<void>(target.read(0ms));
        static_cast<void>(mxlFabricsInitiatorMakeProgressBlocking(initiator.initiator, 5));
        mxlFabricsTargetState state{};
        REQUIRE(mxlFabricsInitiatorGetTargetState(initiator.initiator, wrongKeys, &state, nullptr, nullptr) == MXL_STATUS_OK);
        if (state == MXL_FABRICS_TARGET_CONNECTED)
        {
            static_cast<void>(mxlFabricsInitiatorTransferGrain(initiator.initiator, 100, 0, 4096));
        }
    }
    mxlFabricsTargetCounters counters{};
    REQUIRE(mxlFabricsInitiatorGetTargetCounters(initiator.initiator, wrongKeys, &counters) == MXL_STATUS_OK);
    // Retried at once it would connect again about every 100 ms; backing off (100 ms doubling to 3 s) about 5 times.
    INFO(counters.reconnects, " connections after the first in 3 s");
    CHECK(counters.reconnects >= 1);
    CHECK(counters.reconnects <= 7);
    REQUIRE(mxlFabricsInitiatorRemoveTarget(initiator.initiator, wrongKeys) == MXL_STATUS_OK);
    REQUIRE(mxlFabricsFreeTargetInfo(wrongKeys) == MXL_STATUS_OK);
}
