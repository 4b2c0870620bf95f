// What the session tests share: two domains' flows over tcp on 127.0.0.1, a writer filling the source with a pattern
// at its rate, a receiver session on a thread of its own, and the check of the grains that arrived.
#pragma once

#include "bridge/Metrics.hpp"
#include "bridge/ReceiverSession.hpp"

#include "DomainFlow.hpp"
#include "GrainPattern.hpp"

#include <client/FabricsHandles.hpp>
#include <client/FabricsInterfaceChoice.hpp>
#include <client/FabricsInterfaces.hpp>
#include <client/InitiatorTargets.hpp>
#include <client/MxlHandles.hpp>

#include <mxl/flow.h>
#include <mxl/time.h>

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>

namespace mxl::test::sessions
{
    using namespace std::chrono_literals;
    using bridge::Metrics;
    using bridge::ReceiverSession;
    using client::EndpointRole;

    // flows/smpte291_59.94.json: small grains, so that a loaded machine keeps up.
    inline constexpr auto sessionFlowId = "9a4c3e10-f86b-4e27-a519-6d2b8f0c7e54";
    // Generous: the machine may be loaded.
    inline constexpr auto deadline = 60s;

    inline mxl::client::FabricsInterface loopbackTcp(mxlFabricsInstance fabrics, EndpointRole role)
    {
        auto const interfaces = mxl::client::interfacesMatching(fabrics, MXL_FABRICS_PROVIDER_TCP, "127.0.0.1");
        REQUIRE_FALSE(interfaces.empty());
        return mxl::client::chooseEntry(interfaces.front(), "127.0.0.1", role == EndpointRole::Target ? "0" : "", role);
    }

    inline mxl::client::ServiceCounters countersOf(Metrics const& metrics)
    {
        mxl::client::ServiceStatus status;
        metrics.fill(status);
        return status.counters;
    }

    // Writes every grain of the flow at its TAI time, each byte a function of the grain index, until destroyed; with
    // `commits` above 1, each grain's slices are committed in that many ranges over half the grain period, as a writer
    // that commits a picture line block by line block.
    class PatternWriter
    {
    public:
        explicit PatternWriter(mxlFlowWriter writer, mxlRational rate, std::uint16_t commits = 1)
            : _thread{[writer, rate, commits](std::stop_token const& stop) { write(stop, writer, rate, commits); }}
        {
        }

    private:
        std::jthread _thread;

        static void write(std::stop_token const& stop, mxlFlowWriter writer, mxlRational rate, std::uint16_t commits)
        {
            auto const gap = std::chrono::nanoseconds{1'000'000'000LL * rate.denominator / rate.numerator / 2 / commits};
            auto index = ::mxlGetCurrentIndex(&rate);
            while (!stop.stop_requested())
            {
                ::mxlSleepUntil(::mxlIndexToTimestamp(&rate, index));
                mxlGrainInfo grain{};
                std::uint8_t* payload = nullptr;
                if (::mxlFlowWriterOpenGrain(writer, index, &grain, &payload) != MXL_STATUS_OK)
                {
                    return;
                }
                fillGrainPattern(payload, grain.grainSize, index);
                grain.flags = 0;
                for (std::uint16_t commit = 1; commit <= commits; ++commit)
                {
                    grain.validSlices = static_cast<std::uint16_t>(grain.totalSlices * commit / commits);
                    ::mxlFlowWriterCommitGrain(writer, &grain);
                    if (commit < commits)
                    {
                        std::this_thread::sleep_for(gap);
                    }
                }
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
            , _thread{[this](std::stop_token const& stop) { receive(stop); }}
        {
        }

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
        std::atomic<bool> _rebuild{false};
        std::jthread _thread;

        void receive(std::stop_token const& stop)
        {
            while (!stop.stop_requested())
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

    // The newest grains up to the target flow's head that readers may still read (half the ring), each compared byte for
    // byte with the pattern.
    inline void checkArrivedGrains(mxlFlowReader reader)
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
            auto const same =
                grain.validSlices == grain.totalSlices && fnv1a(payload, grain.grainSize) == grainPatternChecksum(grain.grainSize, index);
            intact += same ? 1 : 0;
        }
        CHECK(intact == count);
    }

    // The sender's end: the source flow in a domain of its own, and an initiator set up on it over tcp on 127.0.0.1.
    struct SourceEnd : DomainFlow
    {
        SourceEnd(std::string const& name, std::string const& definition)
            : DomainFlow{name, definition, sessionFlowId}
            , fabrics{instance.get(), "ofi"}
            , initiator{fabrics.get()}
        {
            REQUIRE(client::setUpInitiator(initiator.get(), loopbackTcp(fabrics.get(), EndpointRole::Initiator), reader.get(), {}) ==
                    MXL_STATUS_OK);
        }

        client::FabricsOnInstance fabrics;
        client::FabricsInitiator initiator;
    };

    // A receiver's end: a target flow in a domain of its own with a receiver session on it, receiving on its own thread.
    struct TargetEnd : DomainFlow
    {
        TargetEnd(std::string const& name, std::string const& definition)
            : DomainFlow{name, definition, sessionFlowId}
            , checkReader{instance, sessionFlowId}
            , fabrics{instance.get(), "ofi"}
            , metrics{"target", sessionFlowId, writer.config()}
            , session{fabrics.get(),   loopbackTcp(fabrics.get(), EndpointRole::Target), writer.get(), reader.get(), metrics,
                      {{}, 10s, 100ms}}
            , receiving{session}
        {
        }

        // The checks' own: the session reads on its thread with the other.
        client::FlowReader checkReader;
        client::FabricsOnInstance fabrics;
        Metrics metrics;
        ReceiverSession session;
        ReceivingThread receiving;
    };
}
