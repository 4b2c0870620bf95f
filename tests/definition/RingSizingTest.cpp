// Ring sizes for the history duration: the grain counts and buffer lengths the SDK computes at 200 ms
// (lib/internal/src/Instance.cpp), exactly, and the guards at the extremes.
#include "Rejection.hpp"
#include "flow/FlowDefinition.hpp"

#include <doctest/doctest.h>

using mxl::continuousBufferLength;
using mxl::discreteGrainCount;

namespace
{
    constexpr std::uint64_t history = 200'000'000;
}

TEST_CASE("ring sizing: discrete grain counts at 200 ms")
{
    CHECK(discreteGrainCount({24000, 1001}, history) == 4);
    CHECK(discreteGrainCount({24, 1}, history) == 4);
    CHECK(discreteGrainCount({25, 1}, history) == 5);
    CHECK(discreteGrainCount({30000, 1001}, history) == 5);
    CHECK(discreteGrainCount({50, 1}, history) == 10);
    CHECK(discreteGrainCount({60000, 1001}, history) == 11);
    // 1080i50 rings run at the field rate.
    CHECK(discreteGrainCount({50, 1}, history) == 10);
}

TEST_CASE("ring sizing: longer histories and the two-grain floor")
{
    CHECK(discreteGrainCount({25, 1}, 500'000'000) == 12);
    CHECK(discreteGrainCount({60000, 1001}, 1'000'000'000) == 59);
    // One slot would always be the writer's and zero would divide by zero: never fewer than two.
    CHECK(discreteGrainCount({1, 1}, history) == 2);
    CHECK(discreteGrainCount({25, 1}, 1) == 2);
    CHECK(discreteGrainCount({10, 1}, history) == 2);
}

TEST_CASE("ring sizing: continuous buffer lengths at 200 ms")
{
    CHECK(continuousBufferLength({48000, 1}, history, 4) == 19456);
    CHECK(continuousBufferLength({48000, 1}, history, 4) / 2 == 9728);
    CHECK(continuousBufferLength({44100, 1}, history, 4) == 18432);
    CHECK(continuousBufferLength({96000, 1}, history, 4) == 38912);
}

TEST_CASE("ring sizing: continuous rings are whole pages of samples")
{
    // 64-bit samples: 512 per page. 19200 raw samples → 38 pages → 19456.
    CHECK(continuousBufferLength({48000, 1}, history, 8) == 19456);
    CHECK(continuousBufferLength({44100, 1}, history, 8) == 17920);
    // An exact multiple stays as it is; a nearly empty history still gets one page.
    CHECK(continuousBufferLength({1024 * 5, 1}, history, 4) == 2048);
    CHECK(continuousBufferLength({48000, 1}, 1, 4) == 1024);
}

TEST_CASE("ring sizing: sizes that do not fit the header are rejected")
{
    mxl::test::checkRejected([] { discreteGrainCount({1'000'000'000, 1}, 10'000'000'000'000); }, {"history duration", "grains"});
    mxl::test::checkRejected([] { continuousBufferLength({192000, 1}, 100'000'000'000'000, 4); }, {"history duration", "samples"});
    mxl::test::checkRejected([] { continuousBufferLength({48000, 1}, history, 3); }, {"3 bytes"});
    mxl::test::checkRejected([] { discreteGrainCount({0, 1}, history); }, {"0/1"});
}
