// Redundant paths for audio (mxl-fabrics-demo --path twice with an audio flow): a live 48 kHz source, one initiator per
// path over shm with the first one SIGKILLed mid-stream, and one initiator over two veth links between two network
// namespaces with link A, then link B cut. Every sample of the target's real flow, from the first the check sees to the
// last, is compared with the source's pattern: the flow grows without a gap and without a wrong word while one path
// alone serves it.
#include "PathRejoin.hpp"
#include "Scenario.hpp"
#include "SourceDomains.hpp"

#include "NetworkNamespaces.hpp"
#include "SampleChecker.hpp"
#include "SampleSource.hpp"
#include "Skip.hpp"
#include "TempDomain.hpp"

#include <client/MxlHandles.hpp>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <mxl/flow.h>
#include <mxl/mxl.h>

#include <chrono>
#include <filesystem>
#include <unistd.h>

using namespace mxl::test;
using namespace std::chrono_literals;

namespace
{
    constexpr std::uint32_t seed = 31;
    constexpr std::uint64_t samplesPerSecond = 48'000;
    // 3 s of history at the source: an initiator held up for up to 1.5 s (half the ring) still finds its batches.
    constexpr std::uint64_t redundantSourceHistoryNs = 3'000'000'000;
    constexpr std::uint64_t channels = 2;
    // 3 s at the target (the path flows inherit it): the check, which pauses while a path report is read (a little over a
    // second), may trail the head by half of it.
    constexpr std::uint64_t redundantTargetHistoryNs = 3'000'000'000;

    // The samples the initiator's reported losses may cover: each is a batch it could not send, or a jump over at most the
    // source ring's readable half after it fell that far behind (a machine loaded far beyond its cores), which no
    // redundancy helps. An unloaded run reports none.
    std::uint64_t excusedSamples(DemoProcess& initiator, std::string const& sourceDomain, std::string const& flowId)
    {
        auto const losses = initiator.reportedLosses();
        REQUIRE_MESSAGE(losses.has_value(), "the initiator printed no stats line; stderr:\n", initiator.errors());
        mxl::client::Instance const instance{sourceDomain};
        mxl::client::FlowReader const reader{instance, flowId};
        std::size_t readableHalf = 0;
        CHECK(mxlFlowReaderGetMaxReadLengthSamples(reader.get(), &readableHalf) == MXL_STATUS_OK);
        return losses->lost * readableHalf;
    }

}

TEST_CASE("redundant audio paths over shm: one path's initiator killed mid-stream, and every sample arrives in order")
{
    SourceDomain sourceDomain{"red-audio-src", redundantSourceHistoryNs};
    SourceDomain targetDomain{"red-audio-dst", redundantTargetHistoryNs};
    auto const definition = sourcePath("flows/audio_48k_stereo.json");
    SampleSource source{sourceDomain.str(), definition, seed};
    // shm endpoint names are host-wide: make them unique to this test process.
    auto const label = fmt::format("redundant-audio-{}", ::getpid());
    auto target = startTarget(targetDomain.str(), definition.string(), {"-p", "shm", "--path", label + "-a", "--path", label + "-b"});
    auto& targetProcess = *target.process;
    auto const secondTicket = targetProcess.waitForTicket();
    REQUIRE_MESSAGE(!secondTicket.empty(), "the target printed no second ticket; stderr:\n", targetProcess.errors());
    // Two initiators, as on two hosts: one path each.
    auto first = startInitiator(sourceDomain.str(), source.flowId(), {target.ticket});
    auto second = startInitiator(sourceDomain.str(), source.flowId(), {secondTicket});

    SampleChecker check{targetDomain.str(), source.flowId(), seed};
    REQUIRE_MESSAGE(check.waitForFirstBatch(20s), "no sample reached the real flow within 20 s");
    check.checkFor(3s);
    auto const bothUp = requirePathReport(targetProcess);
    first->kill();
    // Longer than the target's ring: the dead path's samples are a ring behind by the end.
    check.checkFor(7s);
    auto const afterKill = requirePathReport(targetProcess);

    // What the survivor reported as not sent: before the kill a sample had to miss both paths to be lost, after it the
    // survivor alone is every path.
    auto const excused = excusedSamples(*second, sourceDomain.str(), source.flowId());
    auto const& totals = check.totals();
    INFO("verified ", totals.verified, " samples, mismatched ", totals.mismatched, " (", totals.wordsMismatched, " words), gone ",
         totals.gone, ", span ", check.span(), ", excused ", excused, "; first ", afterKill.first[0], ",", afterKill.first[1], " late ",
         afterKill.late[0], ",", afterKill.late[1], " missing ", afterKill.missing[0], ",", afterKill.missing[1], " dropped ",
         afterKill.dropped[0], ",", afterKill.dropped[1], "\ntarget stderr:\n", targetProcess.errors(), "\nsurvivor stderr:\n",
         second->errors());
    MESSAGE("verified ", totals.verified, " samples (", static_cast<double>(totals.verified) / samplesPerSecond, " s), ", totals.mismatched,
            " mismatched, ", totals.gone, " passed over by the check; first after the kill: ", afterKill.first[0] - bothUp.first[0], " / ",
            afterKill.first[1] - bothUp.first[1]);
    CHECK(source.refused() == 0);
    // Gap-free: every sample between the first head and the last was looked at, and every word but those of excused
    // samples is the pattern.
    CHECK(totals.verified + totals.mismatched + totals.gone == check.span());
    CHECK(totals.wordsMismatched <= excused * channels);
    CHECK(totals.gone == 0);
    // 10 s of checking at 48 kHz; a loaded machine may start the check up to a second late.
    CHECK(totals.verified + totals.mismatched >= 9 * samplesPerSecond);
    // The survivor served what came after the kill; the killed path served nothing after the report before it.
    CHECK(afterKill.first[1] - bothUp.first[1] >= 5 * samplesPerSecond);
    CHECK(afterKill.first[0] - bothUp.first[0] <= 2 * samplesPerSecond);
    // The dead path's samples count missing once they are a ring (3 s of history) behind the head, so some do by the
    // report after 7 s (the unit tests count them exactly).
    CHECK(afterKill.missing[0] > 0);
    CHECK(afterKill.dropped[0] + afterKill.dropped[1] == 0);

    stopRedundantEnds(*second, "surviving initiator", targetProcess, targetDomain.str(), excused);
}

TEST_CASE("redundant audio paths over two veth links: link A cut for 5 s, then link B, and every sample arrives in order")
{
    std::string whyNot;
    auto namespaces = twoLinksToCut(whyNot);
    if (!namespaces)
    {
        MXL_SKIP(whyNot.c_str());
    }
    SourceDomain sourceDomain{"red-audio-src", redundantSourceHistoryNs};
    SourceDomain targetDomain{"red-audio-dst", redundantTargetHistoryNs};
    auto const definition = sourcePath("flows/audio_48k_stereo.json");
    SampleSource source{sourceDomain.str(), definition, seed};
    auto target =
        startTarget(targetDomain.str(), definition.string(),
                    {"-p", "tcp", "--path", NetworkNamespaces::firstAddress, "--path", NetworkNamespaces::firstAddressB, "-s", "0"},
                    namespaces->inFirst());
    auto& targetProcess = *target.process;
    auto const secondTicket = targetProcess.waitForTicket();
    REQUIRE_MESSAGE(!secondTicket.empty(), "the target printed no second ticket; stderr:\n", targetProcess.errors());
    // One initiator sending every batch over both paths; a cut path must not make it give up while it stays cut.
    auto initiator = startInitiator(sourceDomain.str(), source.flowId(), {target.ticket, secondTicket}, {"--connect-timeout", "60"},
                                    namespaces->inSecond());

    SampleChecker check{targetDomain.str(), source.flowId(), seed};
    REQUIRE_MESSAGE(check.waitForFirstBatch(20s), "no sample reached the real flow within 20 s");
    auto const runCheckFor = [&](std::chrono::seconds period) { check.checkFor(period); };
    check.checkFor(3s);
    auto const bothUp = requirePathReport(targetProcess);
    REQUIRE(namespaces->setLink(false, NetworkNamespaces::Link::A));
    check.checkFor(5s);
    REQUIRE(namespaces->setLink(true, NetworkNamespaces::Link::A));
    auto const aCut = requirePathReport(targetProcess);
    auto const aBack = waitForRejoin(0, aCut, targetProcess, samplesPerSecond, runCheckFor);
    REQUIRE(namespaces->setLink(false, NetworkNamespaces::Link::B));
    check.checkFor(5s);
    REQUIRE(namespaces->setLink(true, NetworkNamespaces::Link::B));
    auto const bCut = requirePathReport(targetProcess);
    auto const bBack = waitForRejoin(1, bCut, targetProcess, samplesPerSecond, runCheckFor);

    // What the initiator reported as reaching no target.
    auto const excused = excusedSamples(*initiator, sourceDomain.str(), source.flowId());
    auto const& totals = check.totals();
    auto const bFirstWhileACut = aCut.first[1] - bothUp.first[1];
    auto const aFirstWhileBCut = bCut.first[0] - aBack.first[0];
    INFO("verified ", totals.verified, " samples, mismatched ", totals.mismatched, " (", totals.wordsMismatched, " words), gone ",
         totals.gone, ", span ", check.span(), ", excused ", excused, "; first ", bBack.first[0], ",", bBack.first[1], " late ",
         bBack.late[0], ",", bBack.late[1], " missing ", bBack.missing[0], ",", bBack.missing[1], " dropped ", bBack.dropped[0], ",",
         bBack.dropped[1], "\ntarget stderr:\n", targetProcess.errors(), "\ninitiator stderr:\n", initiator->errors());
    MESSAGE("verified ", totals.verified, " samples (", static_cast<double>(totals.verified) / samplesPerSecond, " s), ", totals.mismatched,
            " mismatched; path 2 first while A was cut: ", bFirstWhileACut, ", path 1 first while B was cut: ", aFirstWhileBCut);
    CHECK(source.refused() == 0);
    CHECK(totals.verified + totals.mismatched + totals.gone == check.span());
    CHECK(totals.wordsMismatched <= excused * channels);
    CHECK(totals.gone == 0);
    // 3 + 5 + 4 + 5 + 4 s of checking at least.
    CHECK(totals.verified + totals.mismatched >= 20 * samplesPerSecond);
    // While a link was cut (5 s) the other path served it: all but the second the report before the cut may lag.
    CHECK(bFirstWhileACut >= 4 * samplesPerSecond);
    CHECK(aFirstWhileBCut >= 4 * samplesPerSecond);
    // Each path counts its own cut missing once it delivers again after the gap.
    CHECK(bBack.missing[0] >= 4 * samplesPerSecond);
    CHECK(bBack.missing[1] >= 4 * samplesPerSecond);
    CHECK(bBack.dropped[0] + bBack.dropped[1] == 0);

    stopRedundantEnds(*initiator, "initiator", targetProcess, targetDomain.str(), excused);
}
