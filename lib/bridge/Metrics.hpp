// What one end of a bridge (a service's target or initiator) has done, shared between its loop (which counts) and the
// thread that renders it (a service's HTTP thread, for /metrics): units and bytes moved, late and lost units,
// re-establishments, stalls, the state and the ticket epoch, and transfer latency quantiles over the most recent units.
// The same figures make a service's STATUS= line and its status file (client::ServiceCounters).
//
// A unit is what one transfer moves: a grain of a video or data flow, or a batch of samples of an audio flow. The
// names say which (mxl_grains_total, mxl_batches_total, ...), so that a dashboard never adds grains to batches; audio
// also counts samples (per channel), since batches need not all be the same length.
#pragma once

#include "RedundantMerge.hpp"
#include "TransferUnit.hpp"

#include <client/ServiceStatusFile.hpp>

#include <mxl/flowinfo.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace mxl::bridge
{
    // What a Metrics has counted, for another to go on from.
    struct MetricsTotals
    {
        client::ServiceCounters counters;
        std::uint64_t samples = 0;
        std::uint64_t refusedInitiators = 0;
        std::uint64_t concurrentInitiators = 0;
    };

    class Metrics
    {
    public:
        // `role` is "target" or "initiator"; both become labels. `flow` gives the transfer unit and where the payloads are.
        Metrics(std::string role, std::string flowId, mxlFlowConfigInfo const& flow);

        // One unit moved; `samples` (per channel) is 0 for a grain.
        void moved(std::uint64_t bytes, std::uint64_t samples, std::chrono::nanoseconds latency, bool late);
        void lost(std::uint64_t units);
        // Redundant paths: the units the merge counts lost so far (PathTargets::lost, which never falls), and the
        // per-path counters the STATUS= line shows.
        void setLost(std::uint64_t units);
        void setPathCounters(std::vector<PathCounters> counters);
        void reestablished();
        void stalled();
        // Target: connection requests refused by allow_initiators since the start.
        void setRefusedInitiators(std::uint64_t refused);
        // Target: initiators that connected while another was connected (one ticket used twice) since the start.
        void setConcurrentInitiators(std::uint64_t concurrent);
        void setState(std::string state);
        void setEpoch(std::uint64_t epoch);
        // The transport of the ticket served (target) or followed (initiator): "rma" or "msg".
        void setTransport(std::string transport);

        [[nodiscard]] std::string state() const;

        // Counts on from `earlier`, so that a service that starts afresh in the same process (a target whose flow was
        // re-created) keeps its counters from falling. Call before anything is counted.
        void goOnFrom(MetricsTotals const& earlier);
        [[nodiscard]] MetricsTotals totals() const;

        // Prometheus text exposition format 0.0.4.
        [[nodiscard]] std::string prometheus() const;

        // "state=active epoch=... grains=... rate=.../s ...": rates since the previous call.
        [[nodiscard]] std::string statusLine();

        // The figures of the status file, with the rates the latest statusLine() computed.
        void fill(client::ServiceStatus& status) const;

    private:
        mutable std::mutex _mutex;
        std::string _role;
        std::string _flowId;
        TransferUnit _unit;
        std::string _state = "starting";
        std::uint64_t _epoch = 0;
        std::string _transport;
        std::string _payloadLocation;
        std::optional<std::int32_t> _deviceIndex;
        client::ServiceCounters _counters;
        std::uint64_t _samples = 0;
        std::uint64_t _refusedInitiators = 0;
        std::uint64_t _concurrentInitiators = 0;
        // What goOnFrom took over: the base of the figures set whole (setLost, setRefusedInitiators,
        // setConcurrentInitiators).
        MetricsTotals _carried;
        std::vector<PathCounters> _paths;
        // Seconds, newest last, at most latencyWindow entries.
        std::deque<double> _latencies;
        std::uint64_t _unitsAtLastStatus = 0;
        std::uint64_t _bytesAtLastStatus = 0;
        std::chrono::steady_clock::time_point _lastStatus = std::chrono::steady_clock::now();
        double _unitRate = 0;
        double _byteRate = 0;

        [[nodiscard]] double quantile(double q) const;
    };
}
