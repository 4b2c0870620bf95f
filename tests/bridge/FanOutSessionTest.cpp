// bridge::FanOutSession in one process over tcp on 127.0.0.1: one initiator sends a pattern-filled source flow to two
// receiver sessions, each on a flow of its own domain; both flows get the grains byte for byte. A ticket whose target is
// gone ends the session with a usage error that names it. A grain its writer commits in slice ranges goes as ranges and
// counts once at the receiving session, with its bytes once.
#include "SessionFixtures.hpp"

#include "bridge/FanOutSession.hpp"

#include <client/ClientError.hpp>
#include <client/FabricsHandles.hpp>
#include <client/InitiatorTargets.hpp>
#include <client/MxlHandles.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <set>

using mxl::bridge::FanOutSession;
using namespace mxl::test::sessions;

namespace
{
    // Stops after `grains` whole grains were delivered; keeps what the session told.
    class RecordingObserver final : public FanOutSession::Observer
    {
    public:
        explicit RecordingObserver(std::uint64_t grains)
            : _grains{grains}
        {
        }

        std::size_t connectedTargets = 0;
        std::set<std::size_t> targetsConnected;
        std::uint64_t unitsDelivered = 0;
        // The index of each whole grain delivered, in order.
        std::vector<std::uint64_t> grainIndices;
        std::uint64_t lostUnits = 0;
        std::optional<bool> disconnectConfirmed;

        bool stopRequested() override
        {
            return grainIndices.size() >= _grains;
        }

        void connected(std::size_t targets) override
        {
            connectedTargets = targets;
        }

        void targetConnected(std::size_t index) override
        {
            targetsConnected.insert(index);
        }

        void targetDisconnected(std::size_t /*index*/, std::string const& /*reason*/) override {}

        void targetLagging(std::size_t /*index*/, bool /*lagging*/, std::uint64_t /*skipped*/) override {}

        void targetCounts(std::vector<std::uint64_t> const& /*skipped*/, std::vector<std::uint64_t> const& /*invalidated*/) override {}

        bool reportDue() override
        {
            return false;
        }

        void report() override {}

        void delivered(mxl::bridge::SourceUnit const& unit, std::chrono::nanoseconds /*latency*/) override
        {
            ++unitsDelivered;
            if (unit.completesGrain)
            {
                grainIndices.push_back(unit.index);
            }
        }

        void timedOut(std::string const& /*unit*/, std::chrono::seconds /*timeout*/) override {}

        void lost(std::uint64_t units) override
        {
            lostUnits += units;
        }

        void fellBehind() override {}

        void disconnected(bool confirmed, std::chrono::seconds /*timeout*/) override
        {
            disconnectConfirmed = confirmed;
        }

    private:
        std::uint64_t _grains;
    };

    mxl::client::OwnedTargetInfo targetInfoOf(std::string const& ticket)
    {
        mxlFabricsTargetInfo info = nullptr;
        REQUIRE(::mxlFabricsTargetInfoFromString(ticket.c_str(), &info) == MXL_STATUS_OK);
        return mxl::client::OwnedTargetInfo{info};
    }
}

TEST_CASE("fan-out session: one initiator sends every grain to two targets over tcp, byte for byte, and a gone target is a usage "
          "error")
{
    auto const definition = mxl::test::readFile(mxl::test::sourcePath("flows/smpte291_59.94.json"));
    SourceEnd const source{"fanout-source", definition};
    auto const& initiator = source.initiator;
    auto const& flow = source.writer.config();
    auto const cursor = mxl::bridge::makeSourceCursor(source.reader.get(), flow, sessionFlowId, mxl::bridge::GrainReading::BySlices);
    PatternWriter const writer{source.writer.get(), flow.common.grainRate};

    SUBCASE("two targets get every grain")
    {
        TargetEnd first{"fanout-target-1", definition};
        TargetEnd second{"fanout-target-2", definition};
        auto const firstInfo = targetInfoOf(first.receiving.ticket());
        auto const secondInfo = targetInfoOf(second.receiving.ticket());
        constexpr std::uint64_t units = 40;
        RecordingObserver observer{units};
        FanOutSession session{initiator.get(), {firstInfo.get(), secondInfo.get()}, 20s, sessionFlowId};
        session.run(*cursor, observer);

        CHECK(observer.connectedTargets == 2);
        CHECK(observer.targetsConnected == std::set<std::size_t>{0, 1});
        REQUIRE(observer.grainIndices.size() == units);
        CHECK(std::is_sorted(observer.grainIndices.begin(), observer.grainIndices.end()));
        CHECK(observer.grainIndices.back() - observer.grainIndices.front() + 1 == units + observer.lostUnits);
        REQUIRE(observer.disconnectConfirmed.has_value());
        CHECK(*observer.disconnectConfirmed);
        // Each target got the grains, the newest checked byte for byte.
        auto const until = std::chrono::steady_clock::now() + deadline;
        while ((countersOf(first.metrics).units < units - 1 || countersOf(second.metrics).units < units - 1) &&
               std::chrono::steady_clock::now() < until)
        {
            std::this_thread::sleep_for(10ms);
        }
        CHECK(countersOf(first.metrics).units >= units - 1);
        CHECK(countersOf(second.metrics).units >= units - 1);
        checkArrivedGrains(first.checkReader.get());
        checkArrivedGrains(second.checkReader.get());
    }

    SUBCASE("a target that is gone: the ticket is stale")
    {
        std::string ticket;
        {
            TargetEnd gone{"fanout-gone", definition};
            ticket = gone.receiving.ticket();
        }
        auto const info = targetInfoOf(ticket);
        RecordingObserver observer{1};
        FanOutSession session{initiator.get(), {info.get()}, 2s, sessionFlowId};
        try
        {
            session.run(*cursor, observer);
            FAIL("the session ended without an error");
        }
        catch (mxl::client::ClientError const& e)
        {
            CHECK(e.kind() == mxl::client::ErrorKind::Usage);
            CHECK(std::string{e.what()}.find("stale") != std::string::npos);
        }
        CHECK(observer.unitsDelivered == 0);
    }
}

TEST_CASE("fan-out session: a grain its writer commits in four slice ranges goes as ranges and counts once at the receiving "
          "session, with its bytes once")
{
    // flows/v210_1080p25.json (1080 slices of one line) under the sessions' flow id.
    auto definition = mxl::test::readFile(mxl::test::sourcePath("flows/v210_1080p25.json"));
    definition.replace(definition.find("5d1e7c0a-3f52-4b8e-9a61-2c7f0e4b9d13"), 36, sessionFlowId);
    SourceEnd const source{"slices-source", definition};
    auto const& flow = source.writer.config();
    auto const cursor = mxl::bridge::makeSourceCursor(source.reader.get(), flow, sessionFlowId, mxl::bridge::GrainReading::BySlices);
    PatternWriter const writer{source.writer.get(), flow.common.grainRate, 4};
    TargetEnd target{"slices-target", definition};
    auto const info = targetInfoOf(target.receiving.ticket());

    constexpr std::uint64_t grains = 20;
    RecordingObserver observer{grains};
    FanOutSession session{source.initiator.get(), {info.get()}, 20s, sessionFlowId};
    session.run(*cursor, observer);
    REQUIRE(observer.grainIndices.size() == grains);
    // Normally several ranges a grain; a cursor held up on a loaded machine may find a grain whole.
    MESSAGE(observer.unitsDelivered << " units sent for " << grains << " grains");

    auto const until = std::chrono::steady_clock::now() + deadline;
    while (countersOf(target.metrics).units < grains - 1 && std::chrono::steady_clock::now() < until)
    {
        std::this_thread::sleep_for(10ms);
    }
    auto const counters = countersOf(target.metrics);
    CHECK(counters.units >= grains - 1);
    // A grain, never a range: the first grain may have begun before the session connected.
    CHECK(counters.units <= grains + 1);
    CHECK(counters.bytes == counters.units * mxl::bridge::bytesPerSlice(flow) * 1080);
    checkArrivedGrains(target.checkReader.get());
}
