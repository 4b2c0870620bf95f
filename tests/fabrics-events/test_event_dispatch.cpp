// How events are dispatched: events emitted by handlers run right after them in the same call, handlers are replaced
// and removed, the direct Read calls are refused while events run, and the calls that cannot work are refused with
// the status the header gives.
#include "EventsLink.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace mxl::test;
using namespace mxl::test::fabrics;
using namespace std::chrono_literals;

namespace
{
    constexpr std::uint32_t userType = MXL_FABRICS_EVENT_USER;
    constexpr std::uint32_t followUpType = MXL_FABRICS_EVENT_USER + 1;

    mxlFabricsEvent userEvent(std::uint32_t type, std::uint64_t value)
    {
        mxlFabricsEvent event{};
        event.structSize = sizeof(event);
        event.type = type;
        event.user.value = value;
        return event;
    }

    // A set-up tcp target that no initiator knows: every event it dispatches is one the test emitted.
    struct BareTarget
    {
        FlowDomain domain{"events-api"};
        Flow flow{domain, flowDefinition("smpte291_59.94.json")};
        TargetEnd target{domain, flow, interfaceConfig(MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", nullptr)};

        BareTarget()
        {
            REQUIRE(target.setupStatus == MXL_STATUS_OK);
        }

        int start(std::size_t capacity = 0)
        {
            int fd = -1;
            REQUIRE(mxlFabricsTargetStartEvents(target.target, capacity, &fd) == MXL_STATUS_OK);
            return fd;
        }

        mxlStatus emit(std::uint32_t type, std::uint64_t value)
        {
            auto const event = userEvent(type, value);
            return mxlFabricsTargetEmitEvent(target.target, &event);
        }

        std::size_t dispatch()
        {
            std::size_t dispatched = 0;
            auto const status = mxlFabricsTargetDispatchEvents(target.target, 0, &dispatched);
            CHECK((status == MXL_STATUS_OK || status == MXL_ERR_NOT_READY));
            return dispatched;
        }
    };

    // Value 1 emits 11 and 12, value 11 emits 111: each handler's events must run right after it.
    struct Chain
    {
        std::vector<std::uint64_t> order;
        std::vector<mxlStatus> emitted;

        static void handle(mxlFabricsTarget target, mxlFabricsEvent const* event, void* userData)
        {
            auto& chain = *static_cast<Chain*>(userData);
            chain.order.push_back(event->user.value);
            auto const emit = [&](std::uint64_t value)
            {
                auto const next = userEvent(followUpType, value);
                chain.emitted.push_back(mxlFabricsTargetEmitEvent(target, &next));
            };
            if (event->user.value == 1)
            {
                emit(11);
                emit(12);
            }
            else if (event->user.value == 11)
            {
                emit(111);
            }
        }
    };

    struct Calls
    {
        int first = 0;
        int second = 0;

        static void countFirst(mxlFabricsTarget, mxlFabricsEvent const*, void* userData)
        {
            ++static_cast<Calls*>(userData)->first;
        }

        static void countSecond(mxlFabricsTarget, mxlFabricsEvent const*, void* userData)
        {
            ++static_cast<Calls*>(userData)->second;
        }

        // Hands its type to countSecond, then emits one more event of it.
        static void replaceItself(mxlFabricsTarget target, mxlFabricsEvent const* event, void* userData)
        {
            ++static_cast<Calls*>(userData)->first;
            CHECK(mxlFabricsTargetSetEventHandler(target, event->type, &Calls::countSecond, userData) == MXL_STATUS_OK);
            auto const next = userEvent(event->type, 0);
            CHECK(mxlFabricsTargetEmitEvent(target, &next) == MXL_STATUS_OK);
        }
    };
}

TEST_CASE("events: an event a handler emits is dispatched right after it, in the same call, in emission order")
{
    BareTarget bare;
    bare.start();
    Chain chain;
    REQUIRE(mxlFabricsTargetSetEventHandler(bare.target.target, userType, &Chain::handle, &chain) == MXL_STATUS_OK);
    REQUIRE(mxlFabricsTargetSetEventHandler(bare.target.target, followUpType, &Chain::handle, &chain) == MXL_STATUS_OK);
    REQUIRE(bare.emit(userType, 1) == MXL_STATUS_OK);
    REQUIRE(bare.emit(userType, 2) == MXL_STATUS_OK);
    CHECK(bare.dispatch() == 5);
    CHECK(chain.order == std::vector<std::uint64_t>{1, 11, 12, 111, 2});
    CHECK(chain.emitted == std::vector<mxlStatus>{MXL_STATUS_OK, MXL_STATUS_OK, MXL_STATUS_OK});
    CHECK(bare.dispatch() == 0);
}

TEST_CASE("events: a grain handler's user event runs right after the grain, in the same dispatch call, over tcp and shm")
{
    struct Forwarder
    {
        EventsLink* link;

        static void onGrain(mxlFabricsTarget target, mxlFabricsEvent const* event, void* userData)
        {
            auto& forwarder = *static_cast<Forwarder*>(userData);
            EventsLink::record(target, event, forwarder.link);
            auto const next = userEvent(userType, event->grain.index);
            CHECK(mxlFabricsTargetEmitEvent(target, &next) == MXL_STATUS_OK);
        }
    };
    for (auto const& transport : transports())
    {
        CAPTURE(transport.label);
        EventsLink link{transport, "smpte291_59.94.json"};
        Forwarder forwarder{&link};
        REQUIRE(mxlFabricsTargetSetEventHandler(link.target.target, MXL_FABRICS_EVENT_GRAIN_ARRIVED, &Forwarder::onGrain, &forwarder) ==
                MXL_STATUS_OK);
        REQUIRE(mxlFabricsTargetSetEventHandler(link.target.target, userType, &EventsLink::record, &link) == MXL_STATUS_OK);
        link.seen.clear();
        for (std::uint64_t index = 60; index < 64; ++index)
        {
            writeGrain(link.source, index, 8);
            link.transferGrain(index, 0, link.totalSlices());
        }
        REQUIRE(link.driveUntil([&] { return link.seenOf(userType).size() == 4; }));
        std::vector<Seen> relevant;
        for (auto const& entry : link.seen)
        {
            if (entry.event.type == MXL_FABRICS_EVENT_GRAIN_ARRIVED || entry.event.type == userType)
            {
                relevant.push_back(entry);
            }
        }
        REQUIRE(relevant.size() == 8);
        for (std::size_t i = 0; i < relevant.size(); i += 2)
        {
            CAPTURE(i);
            CHECK(relevant[i].event.type == MXL_FABRICS_EVENT_GRAIN_ARRIVED);
            CHECK(relevant[i + 1].event.type == userType);
            CHECK(relevant[i + 1].event.user.value == relevant[i].event.grain.index);
            CHECK(relevant[i + 1].call == relevant[i].call);
        }
    }
}

TEST_CASE("events: a handler is replaced, replaces itself, and is removed")
{
    BareTarget bare;
    bare.start();
    Calls calls;
    auto* const target = bare.target.target;
    // Sets `handler` (none when null) for the user type, emits one event of it and checks how many events were dispatched.
    auto const emitWith = [&](mxlFabricsEventHandler handler, std::size_t dispatched)
    {
        REQUIRE(mxlFabricsTargetSetEventHandler(target, userType, handler, handler != nullptr ? &calls : nullptr) == MXL_STATUS_OK);
        REQUIRE(bare.emit(userType, 0) == MXL_STATUS_OK);
        CHECK(bare.dispatch() == dispatched);
    };
    emitWith(&Calls::countFirst, 1);
    CHECK(calls.first == 1);

    emitWith(&Calls::countSecond, 1);
    CHECK(calls.first == 1);
    CHECK(calls.second == 1);

    emitWith(nullptr, 1);
    CHECK(calls.first == 1);
    CHECK(calls.second == 1);

    emitWith(&Calls::replaceItself, 2);
    CHECK(calls.first == 2);
    CHECK(calls.second == 2);

    // Handlers belong to the target: they outlive a stop and serve the next start.
    REQUIRE(mxlFabricsTargetStopEvents(target) == MXL_STATUS_OK);
    bare.start();
    REQUIRE(bare.emit(userType, 0) == MXL_STATUS_OK);
    CHECK(bare.dispatch() == 1);
    CHECK(calls.second == 3);
}

TEST_CASE("events: ReadGrain and ReadSamples are refused while events run, work after StopEvents, and setup again stops events")
{
    for (auto const& transport : transports())
    {
        CAPTURE(transport.label);
        EventsLink link{transport, "smpte291_59.94.json"};
        auto* const target = link.target.target;
        std::uint64_t index = 0;
        std::size_t count = 0;
        CHECK(mxlFabricsTargetReadGrain(target, 10, &index) == MXL_ERR_INVALID_STATE);
        CHECK(mxlFabricsTargetReadGrainNonBlocking(target, &index) == MXL_ERR_INVALID_STATE);
        CHECK(mxlFabricsTargetReadSamples(target, 10, &index, &count) == MXL_ERR_INVALID_STATE);

        // Stopped, the direct path works again.
        REQUIRE(mxlFabricsTargetStopEvents(target) == MXL_STATUS_OK);
        CHECK(mxlFabricsTargetStopEvents(target) == MXL_STATUS_OK);
        writeGrain(link.source, 80, 4);
        REQUIRE(mxlFabricsInitiatorTransferGrain(link.initiator.initiator, 80, 0, link.totalSlices()) == MXL_STATUS_OK);
        auto const read = receive(link.initiator, link.target, 10s);
        REQUIRE(read.has_value());
        CHECK(*read == 80);
        REQUIRE(settle(link.initiator, {&link.target}, 10s) == MXL_STATUS_OK);

        // Started again, on a new descriptor, events flow again.
        REQUIRE(mxlFabricsTargetStartEvents(target, 0, &link.fd) == MXL_STATUS_OK);
        writeGrain(link.source, 81, 4);
        link.transferGrain(81, 0, link.totalSlices());
        CHECK_FALSE(link.sawGrain(80, link.totalSlices()));

        // Setting the target up again stops its events.
        mxlFabricsTargetConfig config{};
        config.interface = interfaceConfig(transport.provider, transport.targetNode.c_str(), nullptr);
        config.writer = link.destination.writer;
        mxlFabricsTargetInfo ticket = nullptr;
        if (transport.provider == MXL_FABRICS_PROVIDER_SHM)
        {
            // A name of the library's choosing: this is about events, not about shm taking over an endpoint's name.
            config.interface.address.node = nullptr;
        }
        REQUIRE(mxlFabricsTargetSetup(target, &config, nullptr, &ticket) == MXL_STATUS_OK);
        CHECK(mxlFabricsFreeTargetInfo(ticket) == MXL_STATUS_OK);
        std::size_t dispatched = 0;
        CHECK(mxlFabricsTargetDispatchEvents(target, 0, &dispatched) == MXL_ERR_INVALID_STATE);
        CHECK(mxlFabricsTargetReadGrain(target, 0, &index) == MXL_ERR_NOT_READY);
    }
}

TEST_CASE("events: ReadSamples is refused while an audio target's events run")
{
    EventsLink link{transports().front(), "audio_48k_stereo.json"};
    std::uint64_t head = 0;
    std::size_t count = 0;
    CHECK(mxlFabricsTargetReadSamples(link.target.target, 10, &head, &count) == MXL_ERR_INVALID_STATE);
    CHECK(mxlFabricsTargetReadSamplesNonBlocking(link.target.target, &head, &count) == MXL_ERR_INVALID_STATE);
    REQUIRE(mxlFabricsTargetStopEvents(link.target.target) == MXL_STATUS_OK);
    CHECK(mxlFabricsTargetReadSamples(link.target.target, 0, &head, &count) == MXL_ERR_NOT_READY);
}

TEST_CASE("events: calls that would end the dispatch a handler runs in are refused from it")
{
    struct Inside
    {
        FlowDomain* domain;
        Flow* flow;
        std::vector<mxlStatus> statuses;

        static void handle(mxlFabricsTarget target, mxlFabricsEvent const*, void* userData)
        {
            auto& inside = *static_cast<Inside*>(userData);
            std::size_t dispatched = 0;
            inside.statuses.push_back(mxlFabricsTargetDispatchEvents(target, 0, &dispatched));
            inside.statuses.push_back(mxlFabricsTargetStopEvents(target));
            inside.statuses.push_back(mxlFabricsDestroyTarget(inside.domain->fabrics, target));
            mxlFabricsTargetConfig config{};
            config.interface = interfaceConfig(MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", nullptr);
            config.writer = inside.flow->writer;
            mxlFabricsTargetInfo ticket = nullptr;
            inside.statuses.push_back(mxlFabricsTargetSetup(target, &config, nullptr, &ticket));
            std::uint64_t index = 0;
            inside.statuses.push_back(mxlFabricsTargetReadGrain(target, 0, &index));
            mxlFabricsEventCounters counters{};
            counters.structSize = sizeof(counters);
            inside.statuses.push_back(mxlFabricsTargetGetEventCounters(target, &counters));
        }
    };
    BareTarget bare;
    bare.start();
    Inside inside{&bare.domain, &bare.flow, {}};
    REQUIRE(mxlFabricsTargetSetEventHandler(bare.target.target, userType, &Inside::handle, &inside) == MXL_STATUS_OK);
    REQUIRE(bare.emit(userType, 0) == MXL_STATUS_OK);
    CHECK(bare.dispatch() == 1);
    CHECK(inside.statuses == std::vector<mxlStatus>{MXL_ERR_INVALID_STATE, MXL_ERR_INVALID_STATE, MXL_ERR_INVALID_STATE,
                                                    MXL_ERR_INVALID_STATE, MXL_ERR_INVALID_STATE, MXL_STATUS_OK});
}

TEST_CASE("events: a full queue refuses an emit and counts it")
{
    BareTarget bare;
    bare.start(2);
    CHECK(bare.emit(userType, 1) == MXL_STATUS_OK);
    CHECK(bare.emit(userType, 2) == MXL_STATUS_OK);
    CHECK(bare.emit(userType, 3) == MXL_ERR_NOT_READY);
    mxlFabricsEventCounters counters{};
    counters.structSize = sizeof(counters);
    REQUIRE(mxlFabricsTargetGetEventCounters(bare.target.target, &counters) == MXL_STATUS_OK);
    CHECK(counters.queueCapacity == 2);
    CHECK(counters.queued == 2);
    CHECK(counters.emitsRefused == 1);
    CHECK(counters.highWater == 2);
    CHECK(bare.dispatch() == 2);
    REQUIRE(mxlFabricsTargetGetEventCounters(bare.target.target, &counters) == MXL_STATUS_OK);
    CHECK(counters.dispatched == 2);
    CHECK(bare.emit(userType, 4) == MXL_STATUS_OK);
}

TEST_CASE("events: NULL arguments, unknown types and calls in the wrong state are refused")
{
    BareTarget bare;
    auto* const target = bare.target.target;
    int fd = -1;
    std::size_t dispatched = 0;
    auto const event = userEvent(userType, 0);
    mxlFabricsEventCounters counters{};
    counters.structSize = sizeof(counters);

    CHECK(mxlFabricsTargetSetEventHandler(nullptr, userType, &Calls::countFirst, nullptr) == MXL_ERR_INVALID_ARG);
    for (std::uint32_t type : {0U, 8U, 0xFFFFU})
    {
        CAPTURE(type);
        CHECK(mxlFabricsTargetSetEventHandler(target, type, &Calls::countFirst, nullptr) == MXL_ERR_INVALID_ARG);
    }
    CHECK(mxlFabricsTargetSetEventHandler(target, MXL_FABRICS_EVENT_TARGET_FAILED, nullptr, nullptr) == MXL_STATUS_OK);
    CHECK(mxlFabricsTargetSetEventHandler(target, 0xFFFFFFFFU, nullptr, nullptr) == MXL_STATUS_OK);

    // Not started yet.
    CHECK(mxlFabricsTargetDispatchEvents(target, 0, &dispatched) == MXL_ERR_INVALID_STATE);
    CHECK(mxlFabricsTargetEmitEvent(target, &event) == MXL_ERR_INVALID_STATE);
    CHECK(mxlFabricsTargetGetEventCounters(target, &counters) == MXL_ERR_INVALID_STATE);
    CHECK(mxlFabricsTargetStopEvents(target) == MXL_STATUS_OK);
    CHECK(mxlFabricsTargetStartEvents(nullptr, 0, &fd) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFabricsTargetStartEvents(target, 0, nullptr) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFabricsTargetStartEvents(target, 65537, &fd) == MXL_ERR_INVALID_ARG);

    mxlFabricsTarget unset = nullptr;
    REQUIRE(mxlFabricsCreateTarget(bare.domain.fabrics, &unset) == MXL_STATUS_OK);
    CHECK(mxlFabricsTargetStartEvents(unset, 0, &fd) == MXL_ERR_INVALID_STATE);
    CHECK(mxlFabricsDestroyTarget(bare.domain.fabrics, unset) == MXL_STATUS_OK);

    fd = bare.start();
    CHECK(mxlFabricsTargetStartEvents(target, 0, &fd) == MXL_ERR_INVALID_STATE);
    CHECK(mxlFabricsTargetDispatchEvents(target, 0, nullptr) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFabricsTargetDispatchEvents(nullptr, 0, &dispatched) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFabricsTargetDispatchEvents(target, 0, &dispatched) == MXL_ERR_NOT_READY);
    CHECK(dispatched == 0);
    CHECK(mxlFabricsTargetEmitEvent(target, nullptr) == MXL_ERR_INVALID_ARG);
    auto libraryType = userEvent(MXL_FABRICS_EVENT_GRAIN_ARRIVED, 0);
    CHECK(mxlFabricsTargetEmitEvent(target, &libraryType) == MXL_ERR_INVALID_ARG);
    auto tooSmall = userEvent(userType, 0);
    tooSmall.structSize = 8;
    CHECK(mxlFabricsTargetEmitEvent(target, &tooSmall) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFabricsTargetGetEventCounters(target, nullptr) == MXL_ERR_INVALID_ARG);
    counters.structSize = 8;
    CHECK(mxlFabricsTargetGetEventCounters(target, &counters) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFabricsTargetStopEvents(nullptr) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFabricsTargetStopEvents(target) == MXL_STATUS_OK);
}

TEST_CASE("events: a target set up again announces its new ticket with EPOCH_CHANGED, first and once")
{
    struct Epochs
    {
        std::vector<mxlFabricsEpochChange> seen;
        std::vector<std::uint32_t> order;

        static void record(mxlFabricsTarget, mxlFabricsEvent const* event, void* userData)
        {
            auto& epochs = *static_cast<Epochs*>(userData);
            epochs.order.push_back(event->type);
            if (event->type == MXL_FABRICS_EVENT_EPOCH_CHANGED)
            {
                epochs.seen.push_back(event->epoch);
            }
        }
    };
    BareTarget bare;
    auto* const target = bare.target.target;
    Epochs epochs;
    REQUIRE(mxlFabricsTargetSetEventHandler(target, MXL_FABRICS_EVENT_EPOCH_CHANGED, &Epochs::record, &epochs) == MXL_STATUS_OK);
    REQUIRE(mxlFabricsTargetSetEventHandler(target, userType, &Epochs::record, &epochs) == MXL_STATUS_OK);

    // The first setup's ticket came from TargetSetup itself: nothing to announce.
    bare.start();
    CHECK(bare.dispatch() == 0);
    REQUIRE(mxlFabricsTargetStopEvents(target) == MXL_STATUS_OK);

    mxlFabricsTargetConfig config{};
    config.interface = interfaceConfig(MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", nullptr);
    config.writer = bare.flow.writer;
    mxlFabricsTargetInfo second = nullptr;
    REQUIRE(mxlFabricsTargetSetup(target, &config, nullptr, &second) == MXL_STATUS_OK);
    bare.start();
    REQUIRE(bare.emit(userType, 1) == MXL_STATUS_OK);
    CHECK(bare.dispatch() == 2);
    CHECK(epochs.order == std::vector<std::uint32_t>{MXL_FABRICS_EVENT_EPOCH_CHANGED, userType});
    REQUIRE(epochs.seen.size() == 1);
    auto const& change = epochs.seen.front();
    CHECK(change.targetId == ticketNumber(second, "id"));
    CHECK(change.epoch == ticketNumber(second, "epoch"));
    CHECK(change.previousTargetId == ticketNumber(bare.target.ticket, "id"));
    CHECK(change.previousEpoch == ticketNumber(bare.target.ticket, "epoch"));
    CHECK(change.epoch != change.previousEpoch);

    // Restarting on the same ticket announces nothing.
    REQUIRE(mxlFabricsTargetStopEvents(target) == MXL_STATUS_OK);
    bare.start();
    CHECK(bare.dispatch() == 0);
    CHECK(epochs.seen.size() == 1);
    CHECK(mxlFabricsFreeTargetInfo(second) == MXL_STATUS_OK);
}
