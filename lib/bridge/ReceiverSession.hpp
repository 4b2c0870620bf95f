// A receiver's session: the fabrics target on its flow, or with redundant paths one on each private path flow merged into
// it (PathTargets), read from the owner's loop; what arrives is accounted in the metrics (bytes, late units, units
// lost between arrivals), and health is what local readers see: the flow's head moving. A read that fails, or a head
// that stops for the stall timeout after units had been flowing, asks the owner to rebuild the targets (listen()
// again, under a new epoch), so that initiators re-establish from scratch.
#pragma once

#include "ArrivalTally.hpp"
#include "Metrics.hpp"
#include "PathTargets.hpp"
#include "TargetRead.hpp"
#include "TransferUnit.hpp"

#include <client/FabricsHandles.hpp>
#include <client/FabricsInterfaces.hpp>

#include <mxl/fabrics.h>
#include <mxl/flow.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mxl::bridge
{
    struct ReceiverSettings
    {
        // The setup options of the target (or of each path's).
        std::string setupOptions;
        // No head movement for this long, after units had been flowing, is a stall.
        std::chrono::milliseconds stallTimeout{5000};
        // A unit that arrives later than this after its timestamp counts as late.
        std::chrono::nanoseconds lateAfter{std::chrono::milliseconds{100}};
    };

    class ReceiverSession
    {
    public:
        using Clock = std::chrono::steady_clock;

        // One fabrics target on `interface` receiving into `writer`; `reader` reads the same flow. All outlive the session.
        ReceiverSession(mxlFabricsInstance fabrics, client::FabricsInterface interface, mxlFlowWriter writer, mxlFlowReader reader,
                        Metrics& metrics, ReceiverSettings settings);
        // Redundant paths (two or more nodes in `paths`) merged into `writer`, each path's interface as `choose` says.
        ReceiverSession(PathSettings const& paths, PathTargets::ChooseInterface const& choose, mxlFlowWriter writer, mxlFlowReader reader,
                        Metrics& metrics, ReceiverSettings settings);

        ReceiverSession(ReceiverSession const&) = delete;
        ReceiverSession& operator=(ReceiverSession const&) = delete;

        // (Re)builds the target, or each path's, and returns their tickets (the library's JSON, unsigned), in path order.
        // The previous targets are gone first: they hold the listening ports the new ones may need. Throws ClientError
        // (Usage: the library refused the interface or the options).
        std::vector<std::string> listen();

        // One read (waiting inside the library up to a tenth of a second where the provider can) and a health check.
        // True when the targets failed or stalled and must be rebuilt with listen().
        [[nodiscard]] bool step(Clock::time_point now);

        // The metrics' state ("active" or "idle", once units flowed; quiet for `idleAfter` is idle), the paths' counters,
        // the refused connection requests and the initiators that connected beside another, as of now.
        void refreshMetrics(Clock::time_point now, Clock::duration idleAfter);

        // True while the flow's head has stood still for a quarter of the stall timeout after units flowed: the owner asks
        // its sender whether it stopped on purpose now, so that the answer comes before the stall.
        [[nodiscard]] bool senderQuestionDue(Clock::time_point now) const noexcept;

        // The sender stopped on purpose (the owner's IS-05 receiver let it go, or found it disabled): the head standing
        // still from now on is no stall, and the state is "waiting" until units flow again. Units that arrive after its
        // trailing writes (those within a stall timeout) start a new stream: the pause is not loss.
        void senderStopped(Clock::time_point now);

        // Counts what a path never delivered up to the end; call once, when stopping.
        void finish();

        [[nodiscard]] bool redundant() const noexcept
        {
            return _paths != nullptr;
        }

    private:
        mxlFabricsInstance _fabrics = nullptr;
        client::FabricsInterface _interface;
        mxlFlowWriter _writer;
        mxlFlowReader _reader;
        mxlFlowConfigInfo _flow{};
        TransferUnit _unit;
        Metrics& _metrics;
        ReceiverSettings _settings;
        std::unique_ptr<client::FabricsTarget> _target;
        // Connection requests refused by the targets replaced since the start (the metric counts over all of them).
        std::uint64_t _refusedByEarlierTargets = 0;
        // Initiators that connected beside another, to the targets replaced since the start.
        std::uint64_t _concurrentAtEarlierTargets = 0;
        std::unique_ptr<PathTargets> _paths;
        ArrivalTally _tally;
        std::uint64_t _head = 0;
        Clock::time_point _headAdvancedAt{};
        // Units arrived since the targets were (re)built: only then can their absence be a stall.
        bool _flowing = false;
        // When the sender last stopped on purpose, if units have not flowed since.
        std::optional<Clock::time_point> _senderStoppedAt;
        // Said once: arrivals an hour or more off the flow's timeline.
        bool _offTimelineReported = false;

        ReceiverSession(mxlFlowWriter writer, mxlFlowReader reader, Metrics& metrics, ReceiverSettings settings);
        // False when a read failed.
        bool receive();
        // What one read of the fabrics target gave, accounted.
        void arrived(TargetRead const& read);
        // A unit ending at index `last` moved: its latency after its own timestamp, counted in the metrics.
        void account(std::uint64_t last, std::uint64_t bytes, std::uint64_t samples);
        // True when the head stood still for the stall timeout after units had flowed.
        bool stalled(Clock::time_point now);
    };
}
