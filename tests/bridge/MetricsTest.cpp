// bridge::Metrics: what /metrics renders and what the status file gets are the same counts, in the unit of the flow.
#include <bridge/Metrics.hpp>

#include <mxl/dataformat.h>

#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <string>

using namespace std::chrono_literals;

namespace
{
    mxlFlowConfigInfo flowOf(std::uint32_t format)
    {
        mxlFlowConfigInfo config{};
        config.common.format = format;
        config.common.payloadLocation = MXL_PAYLOAD_LOCATION_HOST_MEMORY;
        return config;
    }

    bool renders(std::string const& text, std::string const& line)
    {
        return text.find(line + "\n") != std::string::npos;
    }
}

TEST_CASE("bridge metrics: grains moved, late, lost, reconnects and stalls reach /metrics and the status file alike")
{
    mxl::bridge::Metrics metrics{"target", "5fbec3b1-1b0c-417b-9aa6-6a6e1bf2e65b", flowOf(MXL_DATA_FORMAT_VIDEO)};
    for (int i = 0; i < 3; ++i)
    {
        metrics.moved(5'529'600, 0, 2ms, false);
    }
    metrics.moved(5'529'600, 0, 40ms, true);
    metrics.lost(2);
    metrics.reestablished();
    metrics.stalled();
    metrics.setState("active");
    metrics.setEpoch(7);

    auto const text = metrics.prometheus();
    auto const labels = std::string{"{role=\"target\",flow_id=\"5fbec3b1-1b0c-417b-9aa6-6a6e1bf2e65b\"}"};
    CHECK(renders(text, "mxl_grains_total" + labels + " 4"));
    CHECK(renders(text, "mxl_octets_total" + labels + " 22118400"));
    CHECK(renders(text, "mxl_grains_late_total" + labels + " 1"));
    CHECK(renders(text, "mxl_grains_lost_total" + labels + " 2"));
    CHECK(renders(text, "mxl_reconnects_total" + labels + " 1"));
    CHECK(renders(text, "mxl_stalls_total" + labels + " 1"));
    CHECK(renders(text, "mxl_ticket_epoch" + labels + " 7"));
    CHECK(text.find("mxl_batches_total") == std::string::npos);

    mxl::client::ServiceStatus status;
    metrics.fill(status);
    CHECK(status.counters.units == 4);
    CHECK(status.counters.bytes == 22'118'400);
    CHECK(status.counters.late == 1);
    CHECK(status.counters.lost == 2);
    CHECK(status.counters.reconnects == 1);
    CHECK(status.counters.stalls == 1);
    CHECK(status.state == "active");
    CHECK(status.epoch == 7);
    CHECK(status.payloadLocation == "host");
    REQUIRE(status.latencyP50Seconds.has_value());
    CHECK(*status.latencyP50Seconds == doctest::Approx(0.002));
}

TEST_CASE("bridge metrics: an audio flow counts batches and the samples per channel they carried")
{
    mxl::bridge::Metrics metrics{"initiator", "0d6f3a52-1c84-4e97-b2a0-7e5c9d41f3b6", flowOf(MXL_DATA_FORMAT_AUDIO)};
    metrics.moved(480 * 4 * 2, 480, 1ms, false);
    metrics.moved(512 * 4 * 2, 512, 1ms, false);

    auto const text = metrics.prometheus();
    auto const labels = std::string{"{role=\"initiator\",flow_id=\"0d6f3a52-1c84-4e97-b2a0-7e5c9d41f3b6\"}"};
    CHECK(renders(text, "mxl_batches_total" + labels + " 2"));
    CHECK(renders(text, "mxl_samples_total" + labels + " 992"));
    CHECK(renders(text, "mxl_octets_total" + labels + " 7936"));
    CHECK(text.find("mxl_grains_total") == std::string::npos);
    CHECK(text.find("mxl_initiators_refused_total") == std::string::npos);
}

TEST_CASE("bridge metrics: a Metrics that goes on from another's totals counts on from them, the figures set whole included")
{
    mxl::bridge::Metrics earlier{"target", "5fbec3b1-1b0c-417b-9aa6-6a6e1bf2e65b", flowOf(MXL_DATA_FORMAT_VIDEO)};
    earlier.moved(100, 0, 2ms, true);
    earlier.lost(3);
    earlier.stalled();
    earlier.setRefusedInitiators(2);

    mxl::bridge::Metrics later{"target", "5fbec3b1-1b0c-417b-9aa6-6a6e1bf2e65b", flowOf(MXL_DATA_FORMAT_VIDEO)};
    later.goOnFrom(earlier.totals());
    later.moved(100, 0, 2ms, false);
    later.lost(1);
    later.reestablished();
    // A session that starts afresh counts its refusals and redundant losses from 0.
    later.setRefusedInitiators(1);

    auto const text = later.prometheus();
    CHECK(renders(text, "mxl_initiators_refused_total{role=\"target\",flow_id=\"5fbec3b1-1b0c-417b-9aa6-6a6e1bf2e65b\"} 3"));
    mxl::client::ServiceStatus status;
    later.fill(status);
    CHECK(status.counters.units == 2);
    CHECK(status.counters.bytes == 200);
    CHECK(status.counters.late == 1);
    CHECK(status.counters.lost == 4);
    CHECK(status.counters.stalls == 1);
    CHECK(status.counters.reconnects == 1);
    // Redundant paths set their loss whole: on top of the earlier one's.
    later.setLost(2);
    later.fill(status);
    CHECK(status.counters.lost == 5);
}
