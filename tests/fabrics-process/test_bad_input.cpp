// What the demo does with wrong input: every case exits with status 2 and one clear line on stderr, never an abort,
// and leaves nothing half-done behind (no grain written into a target whose initiator was refused).
#include "DemoProcess.hpp"
#include "FlowChecker.hpp"
#include "PatternSource.hpp"
#include "Scenario.hpp"
#include "SourceAndTarget.hpp"
#include "TestFlows.hpp"
#include "Transports.hpp"

#include "TempDomain.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <fstream>

namespace mxl::test
{
    namespace
    {
        constexpr int badInput = 2;

        // Runs the demo to its end; checks exit status 2 and that stderr names the problem.
        void expectRejected(std::vector<std::string> const& arguments, std::string const& message)
        {
            std::string errors;
            auto const status = runDemo(arguments, errors);
            INFO("stderr:\n", errors);
            CHECK(status == badInput);
            CHECK(errors.find("mxl-fabrics-demo: error: ") != std::string::npos);
            CHECK(errors.find(message) != std::string::npos);
        }

        // An initiator command line for flow `flowId` with the given ticket.
        std::vector<std::string> initiatorWith(std::string const& domain, std::string const& flowId, std::string const& ticket)
        {
            return {"-i", "-d", domain, "-f", flowId, "-t", ticket, "--connect-timeout", "2"};
        }

        // tcp finds no listener; shm "connects" to any name, and the demo gives up when no grain is ever taken.
        void staleTicket(Transport const& transport, std::string const& message)
        {
            SourceAndTarget ends{smallV210, transport.targetArguments};
            stopCleanly(*ends.target.process, "target");
            expectRejected(initiatorWith(ends.sourceDomain.str(), ends.source.flowId(), ends.target.ticket), message);
        }
    }

    TEST_CASE("malformed tickets are one-line errors with exit status 2")
    {
        TempDomain domain{"fp-ticket"};
        auto const flow = "0d6f3a52-1c84-4e97-b2a0-7e5c9d41f3b6";
        expectRejected(initiatorWith(domain.str(), flow, "not base64 at all!"), "not valid base64");
        expectRejected(initiatorWith(domain.str(), flow, "QUJD="), "not valid base64");
        expectRejected(initiatorWith(domain.str(), flow, ""), "not valid base64");
        // "hello world", "[1,2,3]"
        expectRejected(initiatorWith(domain.str(), flow, "aGVsbG8gd29ybGQ="), "is not a JSON object");
        expectRejected(initiatorWith(domain.str(), flow, "WzEsMiwzXQ=="), "is not a JSON object");
        // {"provider":"tcp"}
        expectRejected(initiatorWith(domain.str(), flow, "eyJwcm92aWRlciI6InRjcCJ9"), "'addressFormat' must be a number");
        // A complete ticket but for a region length of "big".
        expectRejected(
            initiatorWith(domain.str(), flow,
                          "eyJhZGRyZXNzRm9ybWF0IjoyLCJmYWJyaWNBZGRyZXNzIjoiQWdCaHAzOEFBQUVBQUFBQUFBQUFBQT09IiwiaWQiOiIxIiwicHJvdmlkZXIiOiJ0"
                          "Y3AiLCJyZWdpb25zIjpbeyJhZGRyIjoiMCIsImxlbiI6ImJpZyIsInJrZXkiOiIxIn1dfQ=="),
            "'len' is \"big\", expected a decimal number");
        expectRejected(initiatorWith(domain.str(), flow, "@" + (domain.path() / "missing.json").string()),
                       "cannot read the target info file");
    }

    TEST_CASE("tcp: a stale ticket (its target is gone) exits with status 2")
    {
        staleTicket(tcpIpv4, "did not accept a connection");
    }

    TEST_CASE("shm: a stale ticket (its target is gone) exits with status 2")
    {
        staleTicket(sharedMemory, "the ticket is stale");
    }

    TEST_CASE("the target writes its ticket file (mode 0600, JSON, no NUL) and the initiator reads it with @file")
    {
        TempDomain sourceDomain{"fp-source"};
        TempDomain targetDomain{"fp-target"};
        auto const ticketFile = targetDomain.path() / "ticket.json";
        PatternSource source{sourceDomain.str(), testFlow(smallData)};
        auto target = startTarget(targetDomain.str(), testFlow(smallData).string(),
                                  joined(tcpIpv4.targetArguments, {"-t", "@" + ticketFile.string()}));

        auto const json = readFile(ticketFile);
        REQUIRE(!json.empty());
        CHECK(json.front() == '{');
        CHECK(json.back() == '}');
        CHECK(json.find('\0') == std::string::npos);
        CHECK((std::filesystem::status(ticketFile).permissions() & std::filesystem::perms::all) ==
              (std::filesystem::perms::owner_read | std::filesystem::perms::owner_write));

        auto initiator = startInitiator(sourceDomain.str(), source.flowId(), {"@" + ticketFile.string()});
        FlowChecker checker{targetDomain.str(), source.flowId()};
        checkIntact(checker.check(source, 50, std::chrono::seconds{60}), 50, *initiator, "ticket from a file");
        stopCleanly(*initiator, "initiator");
        stopCleanly(*target.process, "target");
    }

    TEST_CASE("unknown providers are rejected with exit status 2")
    {
        TempDomain domain{"fp-provider"};
        auto const flow = testFlow(smallV210).string();
        expectRejected({"-d", domain.str(), "-f", flow, "-p", "carrier-pigeon"}, "unknown provider 'carrier-pigeon'");
        expectRejected({"-d", domain.str(), "-f", flow, "-p", "any"}, "unknown provider 'any'");
        expectRejected({"-d", domain.str(), "-f", flow, "-p", "TCP"}, "unknown provider 'TCP'");
        expectRejected({"-i", "-d", domain.str(), "-f", "0d6f3a52-1c84-4e97-b2a0-7e5c9d41f3b6", "-t", "e30=", "-p", "udp"},
                       "unknown provider 'udp'");
        // Rejected before the flow was created.
        CHECK(std::filesystem::is_empty(domain.path()));
    }

    TEST_CASE("bad node and service are rejected with exit status 2")
    {
        TempDomain domain{"fp-address"};
        auto const flow = testFlow(smallV210).string();
        // TEST-NET-3: no interface of this host has it.
        expectRejected({"-d", domain.str(), "-f", flow, "-p", "tcp", "-n", "203.0.113.9", "-s", "0"},
                       "no tcp interface has address '203.0.113.9'");
        expectRejected({"-d", domain.str(), "-f", flow, "-p", "tcp", "-n", "not-an-address", "-s", "0"}, "no tcp interface has address");
        expectRejected({"-d", domain.str(), "-f", flow, "-p", "tcp", "-n", "127.0.0.1", "-s", "http"},
                       "service 'http' is not a port number");
        expectRejected({"-d", domain.str(), "-f", flow, "-p", "tcp", "-n", "127.0.0.1", "-s", "70000"},
                       "service '70000' is not a port number");
        CHECK(std::filesystem::is_empty(domain.path()));
    }

    TEST_CASE("bad command lines, flow files and flow ids are rejected with exit status 2")
    {
        TempDomain domain{"fp-usage"};
        auto const notJson = domain.path() / "broken.json";
        std::ofstream{notJson} << "{ this is not a flow";
        expectRejected({"-f", testFlow(smallV210).string()}, "missing -d/--domain");
        expectRejected({"-d", (domain.path() / "absent").string(), "-f", testFlow(smallV210).string()}, "is not an existing directory");
        expectRejected({"-d", domain.str()}, "missing -f/--flow");
        expectRejected({"-d", domain.str(), "-f", testFlow(smallV210).string(), "--count", "many"}, "--count");
        expectRejected({"-d", domain.str(), "-f", testFlow(smallV210).string(), "--no-such-option"}, "no-such-option");
        expectRejected({"-d", domain.str(), "-f", (domain.path() / "absent.json").string(), "-p", "tcp", "-n", "127.0.0.1"},
                       "cannot read the flow definition");
        expectRejected({"-d", domain.str(), "-f", notJson.string(), "-p", "tcp", "-n", "127.0.0.1"}, "rejected");
        // Hostile rather than mistaken: nested a million arrays deep (no crash while quoting it), a device read without end.
        auto const deep = domain.path() / "deep.json";
        std::ofstream{deep} << std::string(500000, '[') << std::string(500000, ']');
        expectRejected({"-d", domain.str(), "-f", deep.string(), "-p", "tcp", "-n", "127.0.0.1"}, "rejected");
        expectRejected({"-d", domain.str(), "-f", "/dev/zero", "-p", "tcp", "-n", "127.0.0.1"},
                       "cannot read the flow definition '/dev/zero': it is a character device, not a regular file");
        expectRejected({"-i", "-d", domain.str(), "-f", "0d6f3a52-1c84-4e97-b2a0-7e5c9d41f3b6"}, "needs -t/--target-info");
        expectRejected({"-i", "-d", domain.str(), "-f", "0d6f3a52-1c84-4e97-b2a0-7e5c9d41f3b6", "-t", "e30=", "-p", "tcp"},
                       "'addressFormat' must be a number");
    }

    TEST_CASE("group selections that name no flow, or mix -f and -g, are rejected with exit status 2")
    {
        TempDomain domain{"fp-group"};
        PatternSource source{domain.str(), testFlow(smallV210)};
        auto const ticket = std::string{"e30="};
        // The domain has the source's flow, in another group: the message names the groups that are there.
        expectRejected({"-i", "-d", domain.str(), "-g", "No Such Camera", "-t", ticket},
                       "no flow in domain '" + domain.str() + "' has a grouphint of group 'No Such Camera' (groups there: '");
        expectRejected({"-i", "-d", domain.str(), "-g", "No Such Camera", "-f", source.flowId(), "-t", ticket},
                       "the initiator takes -f/--flow or -g/--group, not both");
        expectRejected({"-d", domain.str(), "-g", "No Such Camera"}, "-g/--group on a target orders and checks its flow definitions");
        expectRejected({"-d", domain.str(), "-g", "No Such Camera", "-f", testFlow(smallV210).string()},
                       "flow definition '" + testFlow(smallV210).string() + "': its grouphint ('");
    }

    TEST_CASE("--path given once, three times or twice the same is rejected with exit status 2 and leaves nothing behind")
    {
        TempDomain domain{"fp-paths"};
        auto const video = testFlow(smallV210).string();
        auto const target = [&](std::string const& flow, std::vector<std::string> const& paths)
        {
            std::vector<std::string> arguments{"-d", domain.str(), "-f", flow, "-p", "shm"};
            for (auto const& path : paths)
            {
                arguments.push_back("--path");
                arguments.push_back(path);
            }
            return arguments;
        };
        expectRejected(target(video, {"p1"}), "--path was given 1 time(s); redundant paths need it exactly twice");
        expectRejected(target(video, {"p1", "p2", "p3"}), "--path was given 3 time(s); redundant paths need it exactly twice");
        expectRejected(target(video, {"p1", "p1"}), "--path 'p1' was given twice: the two paths need two different nodes");
        expectRejected(joined(target(video, {"p1", "p2"}), {"-n", "p0"}), "-n/--node 'p0' and --path exclude each other");
        expectRejected(
            {"-i", "-d", domain.str(), "-f", "0d6f3a52-1c84-4e97-b2a0-7e5c9d41f3b6", "-t", "e30=", "--path", "p1", "--path", "p2"},
            "--path applies to the target only");
        // Neither a flow nor a path's private domain was left in the domain.
        CHECK(std::filesystem::is_empty(domain.path()));
    }

    TEST_CASE("--device: a bad ordinal, an initiator, --path or flow options naming another location or device are rejected with "
              "exit status 2 and leave nothing behind")
    {
        TempDomain domain{"fp-device"};
        TempDomain files{"fp-device-files"};
        auto const hostOptions = files.path() / "host.json";
        std::ofstream{hostOptions} << R"({"payloadLocation": "host"})";
        auto const otherDevice = files.path() / "device-1.json";
        std::ofstream{otherDevice} << R"({"payloadLocation": "device", "deviceIndex": 1, "maxCommitBatchSizeHint": 1})";
        auto const target = joined({"-d", domain.str(), "-f", testFlow(smallV210).string()}, tcpIpv4.targetArguments);
        for (auto const* ordinal : {"-1", "x", "2147483648", "0.5", ""})
        {
            expectRejected(joined(target, {"--device", ordinal}),
                           fmt::format("--device '{}' is not a CUDA device ordinal (expected an integer from 0 to 2147483647)", ordinal));
        }
        expectRejected(joined(initiatorWith(domain.str(), "0d6f3a52-1c84-4e97-b2a0-7e5c9d41f3b6", "e30="), {"--device", "0"}),
                       "--device applies to the target only: the initiator sends the flow that exists, wherever its payloads are");
        expectRejected(
            {"-d", domain.str(), "-f", testFlow(smallV210).string(), "-p", "shm", "--path", "p1", "--path", "p2", "--device", "0"},
            "--device 0 does not combine with --path: the redundant paths are merged in host memory");
        expectRejected(
            joined(target, {"--flow-options", hostOptions.string(), "--device", "0"}),
            fmt::format(R"(flow options file '{}' has "payloadLocation": "host", but --device 0 asks for "payloadLocation": "device")",
                        hostOptions.string()));
        expectRejected(
            joined(target, {"--flow-options", otherDevice.string(), "--device", "0"}),
            fmt::format(R"(flow options file '{}' has "deviceIndex": 1, but --device 0 asks for "deviceIndex": 0)", otherDevice.string()));
        CHECK(std::filesystem::is_empty(domain.path()));
    }

    TEST_CASE("--help explains --device and the lines that say where a flow's payloads are")
    {
        DemoProcess help{{"--help"}};
        CHECK(help.waitForLine("--device N", std::chrono::seconds{10}).has_value());
        CHECK(help.waitForLine("Target flow: <uuid> (payloads in host memory | payloads on CUDA device N)", std::chrono::seconds{10})
                  .has_value());
        CHECK(help.waitForLine("Initiator flow: <uuid> (payloads in host memory | payloads on CUDA device N)", std::chrono::seconds{10})
                  .has_value());
        CHECK(help.wait(std::chrono::seconds{10}) == 0);
    }

    TEST_CASE("tcp 127.0.0.1: the target and the initiator say that their flow's payloads are in host memory")
    {
        TempDomain sourceDomain{"fp-source"};
        TempDomain targetDomain{"fp-target"};
        PatternSource source{sourceDomain.str(), testFlow(smallV210)};
        DemoProcess target{joined({"-d", targetDomain.str(), "-f", testFlow(smallV210).string()}, tcpIpv4.targetArguments)};
        auto const targetFlow = target.waitForLine("Target flow: ", std::chrono::seconds{10});
        INFO("target stderr:\n", target.errors());
        REQUIRE(targetFlow.has_value());
        CHECK(*targetFlow == "Target flow: " + source.flowId() + " (payloads in host memory)");
        auto const ticket = target.waitForTicket();
        REQUIRE(!ticket.empty());
        DemoProcess initiator{initiatorWith(sourceDomain.str(), source.flowId(), ticket)};
        auto const initiatorFlow = initiator.waitForLine("Initiator flow: ", std::chrono::seconds{10});
        INFO("initiator stderr:\n", initiator.errors());
        REQUIRE(initiatorFlow.has_value());
        CHECK(*initiatorFlow == "Initiator flow: " + source.flowId() + " (payloads in host memory)");
        CHECK(initiator.stop() == 0);
        CHECK(target.stop() == 0);
    }

    TEST_CASE("an initiator whose flow does not exist exits with status 2")
    {
        TempDomain targetDomain{"fp-target"};
        TempDomain emptyDomain{"fp-empty"};
        auto target = startTarget(targetDomain.str(), testFlow(smallV210).string(), tcpIpv4.targetArguments);
        expectRejected(initiatorWith(emptyDomain.str(), "0d6f3a52-1c84-4e97-b2a0-7e5c9d41f3b6", target.ticket), "does not exist in domain");
        stopCleanly(*target.process, "target");
    }

    TEST_CASE("tcp: grains of another size are refused before anything is written")
    {
        TempDomain sourceDomain{"fp-source"};
        TempDomain targetDomain{"fp-target"};
        PatternSource source{sourceDomain.str(), testFlow(largerV210)};
        auto target = startTarget(targetDomain.str(), testFlow(smallV210).string(), tcpIpv4.targetArguments);

        std::string errors;
        auto const status = runDemo(initiatorWith(sourceDomain.str(), source.flowId(), target.ticket), errors);
        INFO("stderr:\n", errors);
        CHECK(status == badInput);
        CHECK(errors.find("does not fit flow") != std::string::npos);
        CHECK(errors.find("grain size mismatch") != std::string::npos);

        FlowChecker checker{targetDomain.str(), "0d6f3a52-1c84-4e97-b2a0-7e5c9d41f3b6"};
        CHECK(checker.headIndex() == 0);
        auto const received = stopCleanly(*target.process, "target");
        CHECK(received.grains == 0);
    }
}

namespace mxl::test
{
    namespace
    {
        std::filesystem::path writeKey(TempDomain const& directory, std::string const& name, std::string const& id, char const* secret)
        {
            auto const path = directory.path() / name;
            std::ofstream{path} << "{\"id\": \"" << id << "\", \"key\": \"" << secret << "\"}";
            std::filesystem::permissions(path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
            return path;
        }
    }

    TEST_CASE("--ticket-key: a target and an initiator sharing a key move grains, and another key or no signature is refused")
    {
        TempDomain sourceDomain{"fp-source"};
        TempDomain targetDomain{"fp-target"};
        // 32 bytes of 'k' and of 'x', base64.
        auto const key = writeKey(targetDomain, "ticket.key", "2026-11", "a2tra2tra2tra2tra2tra2tra2tra2tra2tra2tra2s=");
        auto const otherKey = writeKey(targetDomain, "other.key", "studio-b", "eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHg=");
        PatternSource source{sourceDomain.str(), testFlow(smallV210)};
        auto target =
            startTarget(targetDomain.str(), testFlow(smallV210).string(), joined(tcpIpv4.targetArguments, {"--ticket-key", key.string()}));

        auto refusedKey = initiatorWith(sourceDomain.str(), source.flowId(), target.ticket);
        refusedKey.insert(refusedKey.end(), {"--ticket-key", otherKey.string()});
        expectRejected(refusedKey, "is refused: the ticket is signed with key '2026-11', which is not this side's key 'studio-b'");

        auto initiator = startInitiator(sourceDomain.str(), source.flowId(), {target.ticket}, {"--ticket-key", key.string()});
        FlowChecker checker{targetDomain.str(), source.flowId()};
        checkIntact(checker.check(source, 50, std::chrono::seconds{60}), 50, *initiator, "signed ticket");
        stopCleanly(*initiator, "initiator");
        stopCleanly(*target.process, "target");

        auto unsignedTarget = startTarget(targetDomain.str(), testFlow(smallV210).string(), tcpIpv4.targetArguments);
        auto needsSignature = initiatorWith(sourceDomain.str(), source.flowId(), unsignedTarget.ticket);
        needsSignature.insert(needsSignature.end(), {"--ticket-key", key.string()});
        expectRejected(needsSignature, "is refused: the ticket is not signed");
        stopCleanly(*unsignedTarget.process, "target");
    }
}
