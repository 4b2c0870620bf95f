// A target's ticket publication against a real etcd: published under a lease, withdrawn on a clean stop, and put
// again by itself after etcd restarted without its data; and against a scripted etcd that forgets its leases.
#include <EtcdClient.hpp>
#include <TicketPublication.hpp>

#include "EtcdServer.hpp"
#include "ScriptedHttpPeer.hpp"
#include "Skip.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <thread>
#include <vector>

using namespace mxl::directory;
using mxl::test::EtcdServer;
using mxl::test::ScriptedHttpPeer;

namespace
{
    using namespace std::chrono_literals;
    using Clock = TicketPublication::Clock;

    struct Reports
    {
        std::vector<std::pair<TicketPublication::Outcome, std::string>> seen;

        TicketPublication::Report sink()
        {
            return [this](TicketPublication::Outcome outcome, std::string const& message) { seen.emplace_back(outcome, message); };
        }

        [[nodiscard]] std::size_t count(TicketPublication::Outcome outcome) const
        {
            return static_cast<std::size_t>(
                std::count_if(seen.begin(), seen.end(), [&](auto const& report) { return report.first == outcome; }));
        }
    };

    constexpr char const* key = "/mxl/tickets/studio-a/7a1c52e4-3d0b-4f6e-9c8a-51b2e0d47f19";

    // A real etcd, a publication that has put `ticket` once, and a client of the test's own to look at the key.
    struct PublishedTicket
    {
        EtcdServer etcd;
        EtcdClient client{etcd.endpoint(), 5s};
        Reports reports;
        TicketPublication publication;

        PublishedTicket(std::chrono::seconds ttl, std::chrono::milliseconds timeout, std::string const& ticket)
            : publication{etcd.endpoint(), key, ttl, timeout, reports.sink()}
        {
            publication.publish(ticket, Clock::now());
        }

        // Maintains the publication every `step` until `done()` holds or `within` has passed; whether it holds.
        template <typename Done>
        bool maintainUntil(Clock::duration within, Clock::duration step, Done const& done)
        {
            auto const deadline = Clock::now() + within;
            while (Clock::now() < deadline && !done())
            {
                publication.maintain(Clock::now());
                std::this_thread::sleep_for(step);
            }
            return done();
        }

        void maintainFor(Clock::duration span)
        {
            maintainUntil(span, 100ms, [] { return false; });
        }
    };

    // etcd's JSON gateway as far as a publication uses it, scripted: leases of 1 s, a key that holds what was put last,
    // and a keep-alive answered without a TTL (a lease etcd forgot) unless `keepsLeases`.
    struct ScriptedEtcd
    {
        std::atomic<bool> keepsLeases{true};
        std::mutex putMutex;
        nlohmann::json lastPut;
        ScriptedHttpPeer peer{[this](mxl::HttpRequest const& request) { return answer(request); }};

        mxl::HttpReply answer(mxl::HttpRequest const& request)
        {
            auto reply = [](nlohmann::json const& body) { return mxl::HttpReply{200, "application/json", body.dump()}; };
            if (request.path == "/v3/lease/grant")
            {
                return reply({{"ID", "7587"}, {"TTL", "1"}});
            }
            if (request.path == "/v3/lease/keepalive")
            {
                return keepsLeases ? reply({{"result", {{"ID", "7587"}, {"TTL", "1"}}}}) : reply({{"result", {{"ID", "7587"}}}});
            }
            std::lock_guard lock{putMutex};
            if (request.path == "/v3/kv/put")
            {
                lastPut = nlohmann::json::parse(request.body);
            }
            if (request.path == "/v3/kv/range" && !lastPut.is_null())
            {
                return reply({{"kvs", nlohmann::json::array({lastPut})}});
            }
            return reply(nlohmann::json::object());
        }
    };
}

TEST_CASE("ticket publication: the ticket is in etcd under a lease, replaced on a new epoch, and deleted on withdraw")
{
    MXL_SKIP_IF(EtcdServer::unavailable());
    PublishedTicket ticket{2s, 5s, R"({"epoch":"1"})"};
    CHECK(ticket.publication.published());
    auto const first = ticket.client.get(key);
    REQUIRE(first.has_value());
    CHECK(first->value == R"({"epoch":"1"})");
    CHECK(first->lease != 0);

    // Maintained for three times its lease, the ticket stays.
    ticket.maintainFor(6s);
    CHECK(ticket.client.get(key).has_value());

    ticket.publication.publish(R"({"epoch":"2"})", Clock::now());
    CHECK(ticket.client.get(key)->value == R"({"epoch":"2"})");
    CHECK(ticket.client.get(key)->lease == first->lease);

    ticket.publication.withdraw();
    CHECK_FALSE(ticket.client.get(key).has_value());
    CHECK_FALSE(ticket.publication.published());
    CHECK(ticket.reports.count(TicketPublication::Outcome::Failed) == 0);
}

TEST_CASE("ticket publication: etcd down is reported once and retried, after a restart without data the ticket is put again")
{
    MXL_SKIP_IF(EtcdServer::unavailable());
    PublishedTicket ticket{2s, 1s, R"({"epoch":"3"})"};
    REQUIRE(ticket.publication.published());

    ticket.etcd.kill();
    // Several keep-alive periods against a dead etcd: one failure report, not one per attempt.
    ticket.maintainFor(3s);
    CHECK_FALSE(ticket.publication.published());
    CHECK(ticket.reports.count(TicketPublication::Outcome::Failed) == 1);

    ticket.etcd.start(true);
    ticket.maintainUntil(30s, 100ms, [&] { return ticket.client.get(key).has_value(); });
    auto const again = ticket.client.get(key);
    REQUIRE(again.has_value());
    CHECK(again->value == R"({"epoch":"3"})");
    CHECK(ticket.publication.published());
    CHECK(ticket.reports.count(TicketPublication::Outcome::Published) == 2);
}

TEST_CASE("ticket publication: a ticket deleted or overwritten by someone else while its lease lives is put again within a keep-alive, "
          "one under another publisher's lease left to it")
{
    MXL_SKIP_IF(EtcdServer::unavailable());
    PublishedTicket ticket{3s, 5s, R"({"epoch":"4"})"};
    REQUIRE(ticket.publication.published());
    // The test writes the key as someone else would.
    auto& other = ticket.client;
    auto const lease = other.get(key)->lease;
    // A keep-alive is due every second (a third of the lease); five are allowed.
    auto const maintainUntil = [&](auto const& done) { return ticket.maintainUntil(5s, 50ms, done); };

    other.remove(key);
    REQUIRE(maintainUntil([&] { return other.get(key).has_value(); }));
    CHECK(other.get(key)->value == R"({"epoch":"4"})");
    CHECK(other.get(key)->lease == lease);

    other.put(key, "garbage", 0);
    REQUIRE(maintainUntil([&] { return other.get(key)->value != "garbage"; }));
    CHECK(other.get(key)->value == R"({"epoch":"4"})");
    CHECK(other.get(key)->lease == lease);
    CHECK(ticket.reports.count(TicketPublication::Outcome::Failed) == 2);
    CHECK(ticket.reports.count(TicketPublication::Outcome::Published) == 3);

    // Another publisher's, under a lease of its own: reported once and left to it, not fought over.
    auto const theirs = other.grantLease(10s);
    other.put(key, R"({"epoch":"5"})", theirs);
    CHECK_FALSE(maintainUntil([&] { return other.get(key)->value != R"({"epoch":"5"})"; }));
    CHECK(ticket.reports.count(TicketPublication::Outcome::Failed) == 3);
    // Theirs gone with its lease, the key is put again.
    other.revokeLease(theirs);
    REQUIRE(maintainUntil([&] { return other.get(key).has_value(); }));
    CHECK(other.get(key)->value == R"({"epoch":"4"})");
    CHECK(ticket.reports.count(TicketPublication::Outcome::Failed) == 3);
    CHECK(ticket.reports.count(TicketPublication::Outcome::Published) == 4);
}

TEST_CASE("ticket publication: an etcd that grants leases and forgets them by the next keep-alive is one outage, reported once, "
          "and its end is reported once a keep-alive holds")
{
    ScriptedEtcd fake;
    fake.keepsLeases = false;
    auto& etcd = fake.peer;
    Reports reports;
    TicketPublication publication{etcd.endpoint(), key, 1s, 5s, reports.sink()};
    publication.publish(R"({"epoch":"6"})", Clock::now());
    auto const maintainUntil = [&](auto const& done)
    {
        auto const deadline = Clock::now() + 60s;
        while (Clock::now() < deadline && !done())
        {
            publication.maintain(Clock::now());
            std::this_thread::sleep_for(50ms);
        }
        return done();
    };

    // Six keep-alives, each finding the lease forgotten and the ticket put again under a new one: one outage.
    REQUIRE(maintainUntil([&] { return etcd.requests("/v3/lease/keepalive") >= 6; }));
    CHECK(reports.count(TicketPublication::Outcome::Failed) == 1);
    CHECK(reports.count(TicketPublication::Outcome::Published) == 2);
    CHECK(reports.seen.at(1).second.find("expired; granting a new one") != std::string::npos);

    // etcd keeps the lease: the outage is over, said once.
    fake.keepsLeases = true;
    REQUIRE(maintainUntil([&] { return reports.count(TicketPublication::Outcome::Published) == 3; }));
    CHECK(reports.seen.back().second.find("lease 7587 held through a keep-alive") != std::string::npos);
    auto const keepAlives = etcd.requests("/v3/lease/keepalive");
    REQUIRE(maintainUntil([&] { return etcd.requests("/v3/lease/keepalive") >= keepAlives + 3; }));
    CHECK(reports.count(TicketPublication::Outcome::Failed) == 1);
    CHECK(reports.count(TicketPublication::Outcome::Published) == 3);
    CHECK(publication.published());
}

TEST_CASE("ticket publication: a 1 s lease is kept alive every third of a second, not at every maintain call")
{
    ScriptedEtcd fake;
    auto& etcd = fake.peer;
    Reports reports;
    TicketPublication publication{etcd.endpoint(), key, 1s, 5s, reports.sink()};
    publication.publish(R"({"epoch":"7"})", Clock::now());
    auto const started = Clock::now();
    // Maintained every 20 ms for 1.2 s: sixty calls, of which at most four may keep the lease alive.
    while (Clock::now() - started < 1200ms)
    {
        publication.maintain(Clock::now());
        std::this_thread::sleep_for(20ms);
    }
    CHECK(etcd.requests("/v3/lease/keepalive") >= 1);
    CHECK(etcd.requests("/v3/lease/keepalive") <= 4);
    CHECK(etcd.requests("/v3/kv/put") == 1);
    CHECK(reports.count(TicketPublication::Outcome::Failed) == 0);
}
