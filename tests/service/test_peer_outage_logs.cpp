// Misbehaving peers cost the log one line per outage, not one per attempt: an etcd that forgets the target's leases.
// The peers are scripted HTTP endpoints in the test process; the counts are of the services' log lines over enough
// attempts that a line per attempt would show several times.
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
        REQUIRE_MESSAGE(target.waitForLine("the target goes on and retries", 20s), target.output());

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
}
