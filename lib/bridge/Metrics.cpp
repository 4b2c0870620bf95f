#include "Metrics.hpp"

#include <mxl/dataformat.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace mxl::bridge
{
    namespace
    {
        // About ten seconds of grains at 50 Hz (five of 10 ms batches): recent enough to show a change, large enough for
        // a 0.99 quantile.
        constexpr std::size_t latencyWindow = 512;
        constexpr double quantiles[] = {0.5, 0.9, 0.99};
        constexpr char const* states[] = {"starting", "waiting", "connecting",   "active",   "idle",
                                          "stalled",  "stale",   "reconnecting", "disabled", "stopping"};
    }

    Metrics::Metrics(std::string role, std::string flowId, mxlFlowConfigInfo const& flow)
        : _role{std::move(role)}
        , _flowId{std::move(flowId)}
        , _unit{transferUnitOf(flow)}
    {
        bool const onDevice = flow.common.payloadLocation == MXL_PAYLOAD_LOCATION_DEVICE_MEMORY;
        _payloadLocation = onDevice ? "device" : "host";
        _deviceIndex = onDevice ? std::optional{flow.common.deviceIndex} : std::nullopt;
    }

    void Metrics::moved(std::uint64_t bytes, std::uint64_t samples, std::chrono::nanoseconds latency, bool late)
    {
        std::lock_guard lock{_mutex};
        ++_counters.units;
        _samples += samples;
        _counters.bytes += bytes;
        _counters.late += late ? 1 : 0;
        _latencies.push_back(std::chrono::duration<double>(latency).count());
        if (_latencies.size() > latencyWindow)
        {
            _latencies.pop_front();
        }
    }

    void Metrics::lost(std::uint64_t units)
    {
        std::lock_guard lock{_mutex};
        _counters.lost += units;
    }

    void Metrics::setLost(std::uint64_t units)
    {
        std::lock_guard lock{_mutex};
        _counters.lost = _carried.counters.lost + units;
    }

    void Metrics::setPathCounters(std::vector<PathCounters> counters)
    {
        std::lock_guard lock{_mutex};
        _paths = std::move(counters);
    }

    void Metrics::reestablished()
    {
        std::lock_guard lock{_mutex};
        ++_counters.reconnects;
    }

    void Metrics::setRefusedInitiators(std::uint64_t refused)
    {
        std::lock_guard lock{_mutex};
        _refusedInitiators = _carried.refusedInitiators + refused;
    }

    void Metrics::setConcurrentInitiators(std::uint64_t concurrent)
    {
        std::lock_guard lock{_mutex};
        _concurrentInitiators = _carried.concurrentInitiators + concurrent;
    }

    void Metrics::stalled()
    {
        std::lock_guard lock{_mutex};
        ++_counters.stalls;
    }

    void Metrics::setState(std::string state)
    {
        std::lock_guard lock{_mutex};
        _state = std::move(state);
    }

    void Metrics::setEpoch(std::uint64_t epoch)
    {
        std::lock_guard lock{_mutex};
        _epoch = epoch;
    }

    void Metrics::setTransport(std::string transport)
    {
        std::lock_guard lock{_mutex};
        _transport = std::move(transport);
    }

    std::string Metrics::state() const
    {
        std::lock_guard lock{_mutex};
        return _state;
    }

    void Metrics::goOnFrom(MetricsTotals const& earlier)
    {
        std::lock_guard lock{_mutex};
        _carried = earlier;
        _counters = earlier.counters;
        _samples = earlier.samples;
        _refusedInitiators = earlier.refusedInitiators;
        _concurrentInitiators = earlier.concurrentInitiators;
        // The first rate after it covers this one's units only.
        _unitsAtLastStatus = _counters.units;
        _bytesAtLastStatus = _counters.bytes;
    }

    MetricsTotals Metrics::totals() const
    {
        std::lock_guard lock{_mutex};
        return {_counters, _samples, _refusedInitiators, _concurrentInitiators};
    }

    double Metrics::quantile(double q) const
    {
        if (_latencies.empty())
        {
            return std::nan("");
        }
        std::vector<double> sorted{_latencies.begin(), _latencies.end()};
        auto const rank = static_cast<std::size_t>(q * static_cast<double>(sorted.size() - 1));
        std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(rank), sorted.end());
        return sorted[rank];
    }

    std::string Metrics::prometheus() const
    {
        std::lock_guard lock{_mutex};
        auto const labels = fmt::format("role=\"{}\",flow_id=\"{}\"", _role, _flowId);
        std::string text;
        auto const counter = [&](char const* name, char const* help, std::uint64_t value)
        { text += fmt::format("# HELP {0} {1}\n# TYPE {0} counter\n{0}{{{2}}} {3}\n", name, help, labels, value); };
        if (_unit == TransferUnit::Grain)
        {
            counter("mxl_grains_total", "Grains moved (initiator: delivered; target: received and committed).", _counters.units);
            counter("mxl_octets_total", "Payload bytes moved.", _counters.bytes);
            counter("mxl_grains_late_total", "Grains moved later than late_after_ms after their timestamp.", _counters.late);
            counter("mxl_grains_lost_total", "Grains skipped: never sent, never delivered, or missing at the target.", _counters.lost);
        }
        else
        {
            counter("mxl_batches_total", "Sample batches moved (initiator: delivered; target: received and committed).", _counters.units);
            counter("mxl_samples_total", "Samples per channel moved.", _samples);
            counter("mxl_octets_total", "Payload bytes moved (all channels).", _counters.bytes);
            counter("mxl_batches_late_total", "Batches moved later than late_after_ms after the timestamp of their last sample.",
                    _counters.late);
            counter("mxl_batches_lost_total", "Batches skipped: never sent, never delivered, or missing at the target.", _counters.lost);
        }
        counter("mxl_reconnects_total", "Times the connection was re-established (new epoch, failed writes, stalls).",
                _counters.reconnects);
        counter("mxl_stalls_total", "Stalls detected: the flow's head did not advance for stall_timeout_ms.", _counters.stalls);
        if (_role == "target")
        {
            counter("mxl_initiators_refused_total",
                    "Connection requests refused: the initiator's address not in allow_initiators, no proof of the ticket key "
                    "(ticket_proof), or the ticket of another incarnation of this target.",
                    _refusedInitiators);
            counter("mxl_initiators_concurrent_total",
                    "Initiators that connected while another was connected (one ticket used twice): the grains of both interleave.",
                    _concurrentInitiators);
        }
        text += "# HELP mxl_service_state 1 for the current state of the service.\n# TYPE mxl_service_state gauge\n";
        for (auto const* state : states)
        {
            text += fmt::format("mxl_service_state{{{},state=\"{}\"}} {}\n", labels, state, _state == state ? 1 : 0);
        }
        text += fmt::format("# HELP mxl_ticket_epoch The epoch of the ticket in use (0: none).\n# TYPE mxl_ticket_epoch gauge\n"
                            "mxl_ticket_epoch{{{}}} {}\n",
                            labels, _epoch);
        text += "# HELP mxl_transfer_latency_seconds Transfer latency over the most recent grains or batches (initiator: post to "
                "completion; target: timestamp of the grain, or of the batch's last sample, to arrival).\n# TYPE "
                "mxl_transfer_latency_seconds summary\n";
        double sum = 0;
        for (auto const latency : _latencies)
        {
            sum += latency;
        }
        for (auto const q : quantiles)
        {
            text += fmt::format("mxl_transfer_latency_seconds{{{},quantile=\"{}\"}} {}\n", labels, q, quantile(q));
        }
        text += fmt::format("mxl_transfer_latency_seconds_sum{{{}}} {}\nmxl_transfer_latency_seconds_count{{{}}} {}\n", labels, sum, labels,
                            _latencies.size());
        return text;
    }

    std::string Metrics::statusLine()
    {
        std::lock_guard lock{_mutex};
        auto const now = std::chrono::steady_clock::now();
        auto const seconds = std::max(std::chrono::duration<double>(now - _lastStatus).count(), 1e-3);
        _unitRate = static_cast<double>(_counters.units - _unitsAtLastStatus) / seconds;
        _byteRate = static_cast<double>(_counters.bytes - _bytesAtLastStatus) / seconds;
        _lastStatus = now;
        _unitsAtLastStatus = _counters.units;
        _bytesAtLastStatus = _counters.bytes;
        auto const p50 = quantile(0.5);
        // Audio names its unit and adds the samples; a grain line is unchanged.
        auto const moved = _unit == TransferUnit::Grain ? fmt::format("grains={}", _counters.units)
                                                        : fmt::format("batches={} samples={}", _counters.units, _samples);
        auto line = fmt::format("state={} epoch={} {} rate={:.1f}/s {:.2f}MB/s late={} lost={} reconnects={} stalls={} latency_p50={}",
                                _state, _epoch, moved, _unitRate, _byteRate / 1e6, _counters.late, _counters.lost, _counters.reconnects,
                                _counters.stalls, std::isnan(p50) ? std::string{"n/a"} : fmt::format("{:.2f}ms", p50 * 1e3));
        if (_refusedInitiators > 0)
        {
            line += fmt::format(" refused={}", _refusedInitiators);
        }
        if (_concurrentInitiators > 0)
        {
            line += fmt::format(" concurrent_initiators={}", _concurrentInitiators);
        }
        if (!_paths.empty())
        {
            // Per path, in path order; grains, or samples for audio (the merge's units).
            std::vector<std::uint64_t> first;
            std::vector<std::uint64_t> late;
            std::vector<std::uint64_t> missing;
            std::vector<std::uint64_t> dropped;
            for (auto const& path : _paths)
            {
                first.push_back(path.first);
                late.push_back(path.late);
                missing.push_back(path.missing);
                dropped.push_back(path.dropped);
            }
            line += fmt::format(" path_first={} path_late={} path_missing={} path_dropped={}", fmt::join(first, ","), fmt::join(late, ","),
                                fmt::join(missing, ","), fmt::join(dropped, ","));
        }
        return line;
    }

    void Metrics::fill(client::ServiceStatus& status) const
    {
        std::lock_guard lock{_mutex};
        auto const optionalQuantile = [this](double q)
        {
            auto const value = quantile(q);
            return std::isnan(value) ? std::nullopt : std::optional{value};
        };
        status.role = _role;
        status.flowId = _flowId;
        status.state = _state;
        status.epoch = _epoch;
        status.transport = _transport;
        status.payloadLocation = _payloadLocation;
        status.deviceIndex = _deviceIndex;
        // The status file's schema has no unit: for audio its "grains" figures count batches.
        status.counters = _counters;
        status.concurrentInitiators = _concurrentInitiators;
        status.grainsPerSecond = _unitRate;
        status.bytesPerSecond = _byteRate;
        status.latencyP50Seconds = optionalQuantile(0.5);
        status.latencyP90Seconds = optionalQuantile(0.9);
        status.latencyP99Seconds = optionalQuantile(0.99);
    }
}
