// Misbehaving peers cost the log one line per outage, not one per attempt: an etcd that forgets the target's leases,
// ticket sources whose error text changes at every answer, and a primary ticket source that fails while a later one
// serves. The peers are scripted HTTP endpoints in the test process; the counts are of the services' log lines over
// enough attempts that a line per attempt would show several times.
#include "ScriptedHttpPeer.hpp"
#include "ServiceScenario.hpp"
#include "TestFlow.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <atomic>

namespace mxl::test
{
    namespace
    {
        using namespace std::chrono_literals;

        // A busy peer whose every answer differs (a request counter in it), as an API gateway's request ids do.
        HttpReply busy()
        {
            static std::atomic<int> counter{0};
            return {500, "application/json",
                    nlohmann::json{{"code", 500}, {"error", "busy"}, {"debug", fmt::format("request {}", ++counter)}}.dump()};
        }

        // A ticket server whose body is not JSON, the parse error's column different at every answer.
        HttpReply garbled()
        {
            static std::atomic<int> counter{0};
            return {200, "application/json", std::string(static_cast<std::size_t>(++counter % 9), ' ') + "{garbage"};
        }

        HttpReply jsonReply(nlohmann::json const& body)
        {
            return {200, "application/json", body.dump()};
        }

        // etcd's JSON gateway as far as the target's publication uses it, granting leases and forgetting each by the
        // next keep-alive (answered without a TTL).
        HttpReply forgetfulEtcd(HttpRequest const& request)
        {
            if (request.path == "/v3/lease/grant")
            {
                return jsonReply({{"ID", "7587"}, {"TTL", "2"}});
            }
            if (request.path == "/v3/lease/keepalive")
            {
                return jsonReply({{"result", {{"ID", "7587"}}}});
            }
            return jsonReply(nlohmann::json::object());
        }

        std::string ticketUrl(ScriptedHttpPeer const& peer)
        {
            return fmt::format("http://{}/ticket", peer.endpoint());
        }
    }

    TEST_CASE("peer outages: an etcd that fails, then forgets every lease, is one warning and one publication in the target's log")
    {
        ScriptedHttpPeer etcd{[](HttpRequest const&) { return busy(); }};
        ServiceDirectories directories;
        PatternSource source{directories.source.path(), serviceTestFlow()};
        auto settings = targetSettings(directories);
        settings.insert(settings.end(), {{"etcd", etcd.endpoint()}, {"etcd_domain", "studio-a"}, {"etcd_lease_s", "2"}});
        ServiceProcess target{settings};
        // Its ticket line says where the ticket will be, not that etcd has it.
        auto const published = target.waitForLine("ticket published: epoch", 20s);
        REQUIRE_MESSAGE(published, target.output());
        CHECK(published->find(fmt::format(", etcd://{}/mxl/tickets/studio-a/{} once etcd answers", etcd.endpoint(), serviceTestFlowId)) !=
              std::string::npos);
        // The publication's thread may log its first failure before the ticket line or after it.
        auto const retrying = "the target goes on and retries";
        REQUIRE_MESSAGE((target.output().find(retrying) != std::string::npos || target.waitForLine(retrying, 20s)), target.output());

        etcd.script(forgetfulEtcd);
        // A keep-alive every 2/3 s finds its lease forgotten: eight of them would have been eight warnings and eight
        // publications.
        REQUIRE(target.waitForLine("ticket published at", 20s));
        auto const keepAlives = etcd.requests("/v3/lease/keepalive");
        REQUIRE(etcd.waitForRequests("/v3/lease/keepalive", keepAlives + 8, 60s));
        auto const output = target.output();
        INFO(output);
        CHECK(occurrences(output, "expired; granting a new one") == 1);
        CHECK(occurrences(output, "ticket published at") == 2);
        CHECK_FALSE(target.wait(0ms));
    }

    TEST_CASE("peer outages: etcd and HTTP ticket sources whose error text changes at every answer are one warning, and one line "
              "when a ticket comes")
    {
        ScriptedHttpPeer peer{[](HttpRequest const& request) { return request.path == "/ticket" ? garbled() : busy(); }};
        ServiceDirectories directories;
        PatternSource source{directories.source.path(), serviceTestFlow()};
        ReadyService target{targetSettings(directories)};
        auto settings = initiatorSettings(directories, fmt::format("etcd://{}/mxl/tickets/x/{}", peer.endpoint(), serviceTestFlowId));
        settings.emplace_back("ticket", ticketUrl(peer));
        ServiceProcess initiator{settings};
        // Polled every 200 ms: ten polls would have been ten lines.
        REQUIRE(peer.waitForRequests("/ticket", 10, 60s));
        auto output = initiator.output();
        CHECK_MESSAGE(occurrences(output, "no ticket") == 1, output);
        CHECK_MESSAGE(occurrences(output, "HTTP 500") == 1, output);
        CHECK_MESSAGE(occurrences(output, "not JSON") == 1, output);

        auto const ticket = readFile(directories.ticketFile());
        peer.script(
            [ticket](HttpRequest const& request) {
                return request.path == "/ticket" ? HttpReply{200, "application/json", ticket} : busy();
            });
        REQUIRE_MESSAGE(initiator.waitForLine(fmt::format("ticket source '{}' gives a ticket again", ticketUrl(peer)), 20s),
                        initiator.output());
        FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
        requireFlowing(verifier, 20, "through the ticket the HTTP source gives again");
        output = initiator.output();
        CHECK_MESSAGE(occurrences(output, "no ticket") == 1, output);
    }

    TEST_CASE("peer outages: a primary ticket source that fails while the next one serves is one warning naming it, and one line "
              "when it serves again")
    {
        ScriptedHttpPeer primary{[](HttpRequest const&) { return busy(); }};
        ServiceDirectories directories;
        PatternSource source{directories.source.path(), serviceTestFlow()};
        ReadyService target{targetSettings(directories)};
        auto settings = initiatorSettings(directories, ticketUrl(primary));
        settings.emplace_back("ticket", directories.ticketFile());
        ReadyService initiator{settings};
        REQUIRE(primary.waitForRequests("/ticket", 10, 60s));
        auto output = initiator.output();
        INFO(output);
        CHECK(occurrences(output, fmt::format("ticket source '{}' gives no ticket: the server answered 500", ticketUrl(primary))) == 1);
        CHECK(occurrences(output, fmt::format("using the next one, '{}', meanwhile", directories.ticketFile())) == 1);
        CHECK(occurrences(output, "no ticket") == 1);

        auto const ticket = readFile(directories.ticketFile());
        primary.script([ticket](HttpRequest const&) { return HttpReply{200, "application/json", ticket}; });
        auto const back = initiator.waitForLine(fmt::format("ticket source '{}' gives a ticket again", ticketUrl(primary)), 20s);
        CHECK_MESSAGE(back, initiator.output());
        FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
        requireFlowing(verifier, 20, "through the primary's ticket");
    }
}
