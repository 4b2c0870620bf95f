// Audio between mxl-fabrics-demo processes over tcp and shm: minutes of 2- and 16-channel 48 kHz float32 audio written
// into the past by this process, so it moves in seconds; every sample compared at the target through a reader of the
// target's flow. The two domains keep different history durations, so the rings differ in length at the two ends.
#include "AudioLoop.hpp"
#include "Scenario.hpp"
#include "SourceDomains.hpp"
#include "Transports.hpp"

#include "Skip.hpp"

#include <doctest/doctest.h>

using namespace mxl::test;
using namespace std::chrono_literals;

namespace
{
    // 1 s of history at the source (96256-sample rings), 0.5 s at the target (48128).
    constexpr std::uint64_t sourceHistoryNs = 1'000'000'000;
    constexpr std::uint64_t targetHistoryNs = 500'000'000;

    void moveMinutes(Transport const& transport, char const* flowFile)
    {
        INFO(transport.name, " ", flowFile);
        SourceDomain sourceDomain{"audio-src", sourceHistoryNs};
        SourceDomain targetDomain{"audio-dst", targetHistoryNs};
        // Batches of 100 ms: three minutes are 1800 batches.
        constexpr std::uint32_t batch = 4800;
        constexpr std::size_t batches = 1800;
        auto const options = batchOptions(batch);
        OptionsFile optionsFile{options};
        auto const definition = sourcePath(std::string{"flows/"} + flowFile);
        AudioLoop loop{sourceDomain.str(), readFile(definition), options, 77};
        REQUIRE(loop.batchSamples() == batch);

        auto target =
            startTarget(targetDomain.str(), definition.string(), joined(transport.targetArguments, {"--flow-options", optionsFile.path()}));
        REQUIRE(loop.prime());
        REQUIRE_NOTHROW(loop.attachTarget(targetDomain.str()));
        auto initiator = startInitiator(sourceDomain.str(), loop.flowId(), {target.ticket});
        auto const result = loop.run(batches, 4, 25s);
        MESSAGE(std::string{transport.name} << " " << std::string{flowFile} << ": " << result.samples.verified << " samples ("
                                            << static_cast<double>(result.samples.verified) / 48000.0 << " s of audio, batches of " << batch
                                            << ") verified in " << result.seconds << " s");
        auto const sent = stopCleanly(*initiator, "initiator");
        auto const received = stopCleanly(*target.process, "target");
        INFO("initiator stderr:\n", initiator->errors(), "\ntarget stderr:\n", target.process->errors());
        CHECK(result.samples.verified == batches * batch);
        CHECK(result.samples.mismatched == 0);
        CHECK(result.samples.wordsMismatched == 0);
        CHECK(result.samples.gone == 0);
        CHECK(sent.lost == 0);
        CHECK(received.lost == 0);
        CHECK(received.grains >= batches);
    }
}

TEST_CASE("three minutes of 2-channel audio over tcp")
{
    moveMinutes(tcpIpv4, "audio_48k_stereo.json");
}

TEST_CASE("three minutes of 16-channel audio over tcp")
{
    moveMinutes(tcpIpv4, "audio_48k_16ch.json");
}

TEST_CASE("three minutes of 2-channel audio over shm")
{
    moveMinutes(sharedMemory, "audio_48k_stereo.json");
}

TEST_CASE("three minutes of 16-channel audio over shm")
{
    moveMinutes(sharedMemory, "audio_48k_16ch.json");
}

TEST_CASE("a burst of 150 batches, more than the target's 101 bounce-buffer entries: every batch intact or reported lost, no stall")
{
    // Bounce entries have no flow control (an initiator reuses an entry without knowing whether the target read it): an
    // unthrottled burst longer than the entries is lossless only while the target keeps pace, which a loaded machine or
    // sanitizers may not allow. What must hold whatever the timing: the burst ends, nothing arrives mixed, and a batch
    // that did not arrive was reported lost.
    for (auto const* transport : {&tcpIpv4, &sharedMemory})
    {
        INFO(transport->name);
        // 10 ms batches; 2 s of source history holds the whole burst; 0.5 s at the target make 101 bounce-buffer entries
        // (a 48128-sample ring) and let the check trail the arrivals by up to 50 batches.
        SourceDomain sourceDomain{"audio-src", 2'000'000'000};
        SourceDomain targetDomain{"audio-dst", 500'000'000};
        constexpr std::size_t burst = 150;
        auto const definition = sourcePath("flows/audio_48k_16ch.json");
        AudioLoop loop{sourceDomain.str(), readFile(definition), {}, 5};
        auto target = startTarget(targetDomain.str(), definition.string(), transport->targetArguments);
        REQUIRE(loop.prime());
        REQUIRE_NOTHROW(loop.attachTarget(targetDomain.str()));
        auto initiator = startInitiator(sourceDomain.str(), loop.flowId(), {target.ticket});
        auto const result = loop.run(burst, 0, 15s);
        MESSAGE(std::string{transport->name} << ": burst of " << burst << " batches: " << result.samples.verified << " samples verified in "
                                             << result.seconds << " s, " << result.samples.gone << " passed over by the check, "
                                             << result.samples.mismatched << " not intact");
        auto const sent = stopCleanly(*initiator, "initiator");
        auto const received = stopCleanly(*target.process, "target");
        MESSAGE("initiator moved " << sent.grains << " batches, lost " << sent.lost << "; target received " << received.grains << ", lost "
                                   << received.lost);
        INFO("initiator stderr:\n", initiator->errors(), "\ntarget stderr:\n", target.process->errors());
        // Every batch was looked at before the timeout: no stall.
        CHECK(result.samples.verified + result.samples.mismatched + result.samples.gone == burst * loop.batchSamples());
        // A batch that is not intact at the target (zeros where it was lost) was reported lost by one end or the other:
        // every wrong word lies in a reported batch's worth.
        CHECK(result.samples.wordsMismatched <= (received.lost + sent.lost) * loop.batchSamples() * loop.channels());
        // Batches the check could not reach in time say nothing either way; most must have been checked.
        CHECK(result.samples.gone * 4 <= burst * loop.batchSamples());
    }
}
