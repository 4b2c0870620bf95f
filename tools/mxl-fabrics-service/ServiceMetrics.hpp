// What a service has done, shared between its loop (which counts) and the HTTP thread (which renders /metrics): grains
// and bytes moved, late and lost grains, re-establishments, stalls, the state and the ticket epoch, and transfer
// latency quantiles over the most recent grains. The same figures make the STATUS= line.
#pragma once

#include <ServiceStatusFile.hpp>

#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>

namespace mxl::service
{
    class ServiceMetrics
    {
    public:
        // `role` is "target" or "initiator"; both become labels.
        ServiceMetrics(std::string role, std::string flowId);

        void grainMoved(std::uint64_t bytes, std::chrono::nanoseconds latency, bool late);
        void grainsLost(std::uint64_t count);
        void reestablished();
        void stalled();
        void setState(std::string state);
        void setEpoch(std::uint64_t epoch);
        void setFlowId(std::string flowId);

        [[nodiscard]] std::string state() const;
        [[nodiscard]] std::uint64_t grains() const;

        // Prometheus text exposition format 0.0.4.
        [[nodiscard]] std::string prometheus() const;

        // "state=active epoch=... grains=... rate=.../s ...": rates since the previous call.
        [[nodiscard]] std::string statusLine();

        // The figures of the status file, with the rates the latest statusLine() computed.
        void fill(tools::ServiceStatus& status) const;

    private:
        mutable std::mutex _mutex;
        std::string _role;
        std::string _flowId;
        std::string _state = "starting";
        std::uint64_t _epoch = 0;
        std::uint64_t _grains = 0;
        std::uint64_t _bytes = 0;
        std::uint64_t _late = 0;
        std::uint64_t _lost = 0;
        std::uint64_t _reestablished = 0;
        std::uint64_t _stalls = 0;
        // Seconds, newest last, at most latencyWindow entries.
        std::deque<double> _latencies;
        std::uint64_t _grainsAtLastStatus = 0;
        std::uint64_t _bytesAtLastStatus = 0;
        std::chrono::steady_clock::time_point _lastStatus = std::chrono::steady_clock::now();
        double _grainRate = 0;
        double _byteRate = 0;

        [[nodiscard]] double quantile(double q) const;
    };
}
