// The sessions of lib/bridge in one process over tcp on 127.0.0.1: a receiver session on a target flow and a sender
// session reading a source flow that a writer fills at its rate. The sender follows the receiver's tickets: grains arrive
// byte for byte, a new epoch (the target rebuilt) is taken with the target replaced and grains flowing again, and a
// ticket the sender cannot use leaves the current target in place.
#include "bridge/Metrics.hpp"
#include "bridge/ReceiverSession.hpp"
#include "bridge/SenderSession.hpp"

#include "TempDomain.hpp"

#include <client/FabricsHandles.hpp>
#include <client/FabricsInterfaceChoice.hpp>
#include <client/FabricsInterfaces.hpp>
#include <client/InitiatorTargets.hpp>
#include <client/MxlHandles.hpp>
#include <directory/Ticket.hpp>

#include <mxl/flow.h>
#include <mxl/time.h>

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

using namespace std::chrono_literals;
using mxl::bridge::Metrics;
using mxl::bridge::ReceiverSession;
using mxl::bridge::SenderSession;
using mxl::client::EndpointRole;

namespace
{
    // flows/smpte291_59.94.json: small grains, so that a loaded machine keeps up.
    constexpr auto sessionFlowId = "9a4c3e10-f86b-4e27-a519-6d2b8f0c7e54";
    // Generous: the machine may be loaded.
    constexpr auto deadline = 60s;

    std::uint8_t patternByte(std::uint64_t index, std::size_t offset)
    {
        return static_cast<std::uint8_t>((index * 31 + offset * 7) & 0xff);
    }

    mxl::client::FabricsInterface loopbackTcp(mxlFabricsInstance fabrics, EndpointRole role)
    {
        auto const interfaces = mxl::client::interfacesMatching(fabrics, MXL_FABRICS_PROVIDER_TCP, "127.0.0.1");
        REQUIRE_FALSE(interfaces.empty());
        return mxl::client::chooseEntry(interfaces.front(), "127.0.0.1", role == EndpointRole::Target ? "0" : "", role);
    }

    mxl::client::ServiceCounters countersOf(Metrics const& metrics)
    {
        mxl::client::ServiceStatus status;
        metrics.fill(status);
        return status.counters;
    }

    // Writes every grain of the flow at its TAI time, each byte a function of the grain index, until destroyed.
    class PatternWriter
    {
    public:
        explicit PatternWriter(mxlFlowWriter writer, mxlRational rate)
            : _thread{[this, writer, rate] { write(writer, rate); }}
        {
        }

        ~PatternWriter()
        {
            _stop = true;
            _thread.join();
        }

        PatternWriter(PatternWriter const&) = delete;
        PatternWriter& operator=(PatternWriter const&) = delete;

    private:
        std::atomic<bool> _stop{false};
        std::thread _thread;

        void write(mxlFlowWriter writer, mxlRational rate)
        {
            auto index = ::mxlGetCurrentIndex(&rate);
            while (!_stop)
            {
                ::mxlSleepUntil(::mxlIndexToTimestamp(&rate, index));
                mxlGrainInfo grain{};
                std::uint8_t* payload = nullptr;
                if (::mxlFlowWriterOpenGrain(writer, index, &grain, &payload) != MXL_STATUS_OK)
                {
                    return;
                }
                for (std::size_t offset = 0; offset < grain.grainSize; ++offset)
                {
                    payload[offset] = patternByte(index, offset);
                }
                grain.flags = 0;
                grain.validSlices = grain.totalSlices;
                ::mxlFlowWriterCommitGrain(writer, &grain);
                ++index;
            }
        }
    };

    // The receiver session on its own thread (its reads wait inside the library); rebuild() asks that thread for a
    // new epoch and returns the new ticket.
    class ReceivingThread
    {
    public:
        explicit ReceivingThread(ReceiverSession& session)
            : _session{session}
            , _ticket{session.listen().front()}
            , _thread{[this] { receive(); }}
        {
        }

        ~ReceivingThread()
        {
            _stop = true;
            _thread.join();
        }

        ReceivingThread(ReceivingThread const&) = delete;
        ReceivingThread& operator=(ReceivingThread const&) = delete;

        [[nodiscard]] std::string ticket() const
        {
            std::lock_guard lock{_mutex};
            return _ticket;
        }

        std::string rebuild()
        {
            auto const before = ticket();
            _rebuild = true;
            auto const until = std::chrono::steady_clock::now() + deadline;
            while (ticket() == before && std::chrono::steady_clock::now() < until)
            {
                std::this_thread::sleep_for(10ms);
            }
            return ticket();
        }

    private:
        ReceiverSession& _session;
        mutable std::mutex _mutex;
        std::string _ticket;
        std::atomic<bool> _stop{false};
        std::atomic<bool> _rebuild{false};
        std::thread _thread;

        void receive()
        {
            while (!_stop)
            {
                if (_session.step(std::chrono::steady_clock::now()) || _rebuild.exchange(false))
                {
                    auto ticket = _session.listen().front();
                    std::lock_guard lock{_mutex};
                    _ticket = std::move(ticket);
                }
            }
        }
    };

    struct CountingObserver final : SenderSession::Observer
    {
        std::atomic<int> connections{0};
        std::string activity;

        void connected() override
        {
            ++connections;
        }

        void establishing(std::string const& what) override
        {
            activity = what;
        }
    };

    // Steps `sender` until `done` holds; false when the deadline passed first.
    bool stepUntil(SenderSession& sender, std::function<bool()> const& done)
    {
        auto const until = std::chrono::steady_clock::now() + deadline;
        while (!done())
        {
            if (std::chrono::steady_clock::now() >= until)
            {
                return false;
            }
            sender.step(std::chrono::steady_clock::now());
        }
        return true;
    }

    // The newest grains up to the target flow's head that readers may still read (half the ring), each compared byte for
    // byte with the pattern.
    void checkArrivedGrains(mxlFlowReader reader)
    {
        mxlFlowConfigInfo config{};
        REQUIRE(::mxlFlowReaderGetConfigInfo(reader, &config) == MXL_STATUS_OK);
        std::uint64_t const count = config.discrete.grainCount / 2;
        REQUIRE(count >= 2);
        mxlFlowRuntimeInfo runtime{};
        REQUIRE(::mxlFlowReaderGetRuntimeInfo(reader, &runtime) == MXL_STATUS_OK);
        REQUIRE(runtime.headIndex >= count);
        std::uint64_t intact = 0;
        for (auto index = runtime.headIndex + 1 - count; index <= runtime.headIndex; ++index)
        {
            mxlGrainInfo grain{};
            std::uint8_t* payload = nullptr;
            REQUIRE(::mxlFlowReaderGetGrainNonBlocking(reader, index, &grain, &payload) == MXL_STATUS_OK);
            bool same = grain.validSlices == grain.totalSlices;
            for (std::size_t offset = 0; same && offset < grain.grainSize; ++offset)
            {
                same = payload[offset] == patternByte(index, offset);
            }
            intact += same ? 1 : 0;
        }
        CHECK(intact == count);
    }
}

TEST_CASE("sessions: a sender follows a receiver's tickets over tcp: grains arrive intact, a new epoch replaces the target, an "
          "unusable ticket changes nothing")
{
    mxl::test::TempDomain sourceDomain{"session-source"};
    mxl::test::TempDomain targetDomain{"session-target"};
    auto const definition = mxl::test::readFile(mxl::test::sourcePath("flows/smpte291_59.94.json"));

    mxl::client::Instance const source{sourceDomain.str()};
    mxl::client::FlowWriter const sourceWriter{source, definition, {}, "the source flow"};
    mxl::client::FlowReader const sourceReader{source, sessionFlowId};
    mxl::client::FabricsOnInstance const sourceFabrics{source.get(), "ofi"};
    mxl::client::FabricsInitiator const initiator{sourceFabrics.get()};
    REQUIRE(mxl::client::setUpInitiator(initiator.get(), loopbackTcp(sourceFabrics.get(), EndpointRole::Initiator), sourceReader.get(),
                                        {}) == MXL_STATUS_OK);

    mxl::client::Instance const target{targetDomain.str()};
    mxl::client::FlowWriter const targetWriter{target, definition, {}, "the target flow"};
    mxl::client::FlowReader const targetReader{target, sessionFlowId};
    // The checks' own: the session reads on its thread with the other.
    mxl::client::FlowReader const checkReader{target, sessionFlowId};
    mxl::client::FabricsOnInstance const targetFabrics{target.get(), "ofi"};
    Metrics targetMetrics{"target", sessionFlowId, targetWriter.config()};
    ReceiverSession receiver{targetFabrics.get(), loopbackTcp(targetFabrics.get(), EndpointRole::Target),
                             targetWriter.get(),  targetReader.get(),
                             targetMetrics,       {{}, 10s, 100ms}};

    auto const& flow = sourceWriter.config();
    auto const cursor = mxl::bridge::makeSourceCursor(sourceReader.get(), flow, sessionFlowId);
    Metrics senderMetrics{"initiator", sessionFlowId, flow};
    CountingObserver observer;
    SenderSession sender{initiator.get(), *cursor, flow, senderMetrics, {sessionFlowId, "tcp", 10s, 5s, 40ms, 100ms, 1s}, observer};

    PatternWriter const writer{sourceWriter.get(), flow.common.grainRate};
    ReceivingThread receiving{receiver};

    auto const first = mxl::directory::libraryTicket(receiving.ticket());
    sender.offer(first, "the first ticket");
    REQUIRE(sender.hasTarget());
    CHECK(observer.activity.find(std::to_string(first.epoch)) != std::string::npos);
    REQUIRE(stepUntil(sender, [&] { return countersOf(senderMetrics).units >= 30 && countersOf(targetMetrics).units >= 30; }));
    CHECK(observer.connections == 1);
    CHECK(sender.targetStatus(std::chrono::steady_clock::now()).front().epoch == first.epoch);
    CHECK(sender.targetStatus(std::chrono::steady_clock::now()).front().state == "connected");
    checkArrivedGrains(checkReader.get());

    SUBCASE("a new epoch: the target is replaced and grains flow again")
    {
        auto const second = mxl::directory::libraryTicket(receiving.rebuild());
        REQUIRE(second.epoch != first.epoch);
        sender.offer(second, "the second ticket");
        CHECK(sender.targetStatus(std::chrono::steady_clock::now()).front().epoch == second.epoch);
        auto const movedBefore = countersOf(targetMetrics).units;
        REQUIRE(stepUntil(sender, [&] { return observer.connections == 2 && countersOf(targetMetrics).units >= movedBefore + 30; }));
        CHECK(countersOf(senderMetrics).reconnects == 1);
        checkArrivedGrains(checkReader.get());
        // The same incarnation again is no news.
        sender.offer(second, "the second ticket");
        CHECK(countersOf(senderMetrics).reconnects == 1);
    }

    SUBCASE("a ticket for another provider is refused and the target kept")
    {
        auto other = mxl::directory::libraryTicket(receiving.rebuild());
        other.provider = "shm";
        CHECK(sender.unusable(other).find("provider shm") != std::string::npos);
        sender.offer(other, "the shm ticket");
        CHECK(sender.targetStatus(std::chrono::steady_clock::now()).front().epoch == first.epoch);
        CHECK(countersOf(senderMetrics).reconnects == 0);
    }

    sender.disconnect();
    CHECK_FALSE(sender.hasTarget());
}
