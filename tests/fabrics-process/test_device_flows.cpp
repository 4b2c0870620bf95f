// Device flows between mxl-fabrics-demo processes (docs/device-flows.md, "Across the fabric"), through the fake device
// module that every process of the case loads (MXL_DEVICE_MODULE_PATH is inherited): a device source read by the
// initiator, a target started with --device 0, and each of them against a host flow at the other end, over tcp and shm.
// Every grain's checksum is compared with what the source wrote. Then the same with the payloads registered directly
// (MXL_FABRICS_DEVICE_PAYLOADS=direct, and the test knob MXL_FABRICS_DEVICE_MEMORY_IS_HOST=1 that lets the fake
// module's host memory register as device memory): the target's ticket splits its grain regions.
#if MXL_TEST_WITH_CUDA

#    include "PatternSource.hpp"
#    include "Scenario.hpp"
#    include "TestFlows.hpp"
#    include "Transports.hpp"

#    include "ScopedVariable.hpp"
#    include "TempDomain.hpp"
#    include "common/Base64.hpp"

#    include <doctest/doctest.h>
#    include <nlohmann/json.hpp>

#    include <cstdlib>

namespace mxl::test
{
    namespace
    {
        constexpr char const* onDevice = R"({"payloadLocation": "device", "deviceIndex": 0})";

        enum class End
        {
            Host,
            Device
        };

        // Returns the target's ticket as the demo printed it.
        std::string moveGrains(Transport const& transport, End source, End target)
        {
            ::setenv("MXL_DEVICE_MODULE_PATH", MXL_FAKE_DEVICE_MODULE_DIR, 1);
            TempDomain sourceDomain{"fp-device-source"};
            TempDomain targetDomain{"fp-device-target"};
            PatternSource writer{sourceDomain.str(), testFlow(smallV210), 0, source == End::Device ? onDevice : ""};
            auto arguments = transport.targetArguments;
            if (target == End::Device)
            {
                arguments.insert(arguments.end(), {"--device", "0"});
            }
            auto running = startTarget(targetDomain.str(), testFlow(smallV210).string(), arguments);
            auto initiator = startInitiator(sourceDomain.str(), writer.flowId(), {running.ticket});
            FlowChecker checker{targetDomain.str(), writer.flowId()};
            checkIntact(checker.check(writer, 100, std::chrono::seconds{30}), 100, *initiator, transport.name);
            stopCleanly(*initiator, "initiator");
            stopCleanly(*running.process, "target");
            return running.ticket;
        }

        // Both demos inherit the variables; the target's ticket (the demo prints it in base64) splits its grain regions.
        void moveGrainsDirect(Transport const& transport, End source)
        {
            ScopedVariable const hostMemory{"MXL_FABRICS_DEVICE_MEMORY_IS_HOST", "1"};
            ScopedVariable const direct{"MXL_FABRICS_DEVICE_PAYLOADS", "direct"};
            auto const printed = moveGrains(transport, source, End::Device);
            auto const text = decodeBase64(printed);
            REQUIRE(text.has_value());
            auto const ticket = nlohmann::json::parse(*text);
            CHECK(ticket.value("grainRegions", "") == "split");
            auto const& regions = ticket.at("regions");
            CHECK(regions.size() % 2 == 0);
            CHECK(regions.at(0).at("len") == "8192");
        }
    }

    TEST_CASE("device flows (fake module): device → device grains between demo processes arrive intact over tcp 127.0.0.1")
    {
        moveGrains(tcpIpv4, End::Device, End::Device);
    }

    TEST_CASE("device flows (fake module): device → device grains between demo processes arrive intact over shm")
    {
        moveGrains(sharedMemory, End::Device, End::Device);
    }

    TEST_CASE("device flows (fake module): host → device grains (a target with --device 0) arrive intact over tcp 127.0.0.1")
    {
        moveGrains(tcpIpv4, End::Host, End::Device);
    }

    TEST_CASE("device flows (fake module): device → host grains arrive intact over shm")
    {
        moveGrains(sharedMemory, End::Device, End::Host);
    }

    TEST_CASE("device payloads registered directly (fake module, test knob): device → device between demo processes over tcp 127.0.0.1")
    {
        moveGrainsDirect(tcpIpv4, End::Device);
    }

    TEST_CASE("device payloads registered directly (fake module, test knob): host → direct device target between demo processes over shm")
    {
        moveGrainsDirect(sharedMemory, End::Host);
    }
}

#endif
