// A target's ticket publication against a real etcd: published under a lease, withdrawn on a clean stop, and put
// again by itself after etcd restarted without its data.
#include <EtcdClient.hpp>
#include <TicketPublication.hpp>

#include "EtcdServer.hpp"
#include "Skip.hpp"

#include <doctest/doctest.h>

#include <thread>
#include <vector>

using namespace mxl::directory;
using mxl::test::EtcdServer;

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
}

TEST_CASE("ticket publication: the ticket is in etcd under a lease, replaced on a new epoch, and deleted on withdraw")
{
    if (auto const why = EtcdServer::unavailable())
    {
        MXL_SKIP(why->c_str());
    }
    EtcdServer etcd;
    EtcdClient reader{etcd.endpoint(), 5s};
    Reports reports;
    TicketPublication publication{etcd.endpoint(), key, 2s, 5s, reports.sink()};
    publication.publish(R"({"epoch":"1"})", Clock::now());
    CHECK(publication.published());
    auto const first = reader.get(key);
    REQUIRE(first.has_value());
    CHECK(first->value == R"({"epoch":"1"})");
    CHECK(first->lease != 0);

    // Maintained for three times its lease, the ticket stays.
    auto const until = Clock::now() + 6s;
    while (Clock::now() < until)
    {
        publication.maintain(Clock::now());
        std::this_thread::sleep_for(100ms);
    }
    CHECK(reader.get(key).has_value());

    publication.publish(R"({"epoch":"2"})", Clock::now());
    CHECK(reader.get(key)->value == R"({"epoch":"2"})");
    CHECK(reader.get(key)->lease == first->lease);

    publication.withdraw();
    CHECK_FALSE(reader.get(key).has_value());
    CHECK_FALSE(publication.published());
    CHECK(reports.count(TicketPublication::Outcome::Failed) == 0);
}

TEST_CASE("ticket publication: etcd down is reported once and retried, after a restart without data the ticket is put again")
{
    if (auto const why = EtcdServer::unavailable())
    {
        MXL_SKIP(why->c_str());
    }
    EtcdServer etcd;
    Reports reports;
    TicketPublication publication{etcd.endpoint(), key, 2s, 1s, reports.sink()};
    publication.publish(R"({"epoch":"3"})", Clock::now());
    REQUIRE(publication.published());

    etcd.kill();
    // Several keep-alive periods against a dead etcd: one failure report, not one per attempt.
    auto const until = Clock::now() + 3s;
    while (Clock::now() < until)
    {
        publication.maintain(Clock::now());
        std::this_thread::sleep_for(100ms);
    }
    CHECK_FALSE(publication.published());
    CHECK(reports.count(TicketPublication::Outcome::Failed) == 1);

    etcd.start(true);
    EtcdClient reader{etcd.endpoint(), 5s};
    auto const deadline = Clock::now() + 30s;
    while (Clock::now() < deadline && !reader.get(key))
    {
        publication.maintain(Clock::now());
        std::this_thread::sleep_for(100ms);
    }
    auto const again = reader.get(key);
    REQUIRE(again.has_value());
    CHECK(again->value == R"({"epoch":"3"})");
    CHECK(publication.published());
    CHECK(reports.count(TicketPublication::Outcome::Published) == 2);
}

TEST_CASE("ticket publication: a ticket deleted or overwritten by someone else while its lease lives is put again within a keep-alive, "
          "one under another publisher's lease left to it")
{
    if (auto const why = EtcdServer::unavailable())
    {
        MXL_SKIP(why->c_str());
    }
    EtcdServer etcd;
    EtcdClient other{etcd.endpoint(), 5s};
    Reports reports;
    TicketPublication publication{etcd.endpoint(), key, 3s, 5s, reports.sink()};
    publication.publish(R"({"epoch":"4"})", Clock::now());
    REQUIRE(publication.published());
    auto const lease = other.get(key)->lease;
    auto const maintainUntil = [&](auto const& done)
    {
        // A keep-alive is due every second (a third of the lease); five are allowed.
        auto const deadline = Clock::now() + 5s;
        while (Clock::now() < deadline && !done())
        {
            publication.maintain(Clock::now());
            std::this_thread::sleep_for(50ms);
        }
        return done();
    };

    other.remove(key);
    REQUIRE(maintainUntil([&] { return other.get(key).has_value(); }));
    CHECK(other.get(key)->value == R"({"epoch":"4"})");
    CHECK(other.get(key)->lease == lease);

    other.put(key, "garbage", 0);
    REQUIRE(maintainUntil([&] { return other.get(key)->value != "garbage"; }));
    CHECK(other.get(key)->value == R"({"epoch":"4"})");
    CHECK(other.get(key)->lease == lease);
    CHECK(reports.count(TicketPublication::Outcome::Failed) == 2);
    CHECK(reports.count(TicketPublication::Outcome::Published) == 3);

    // Another publisher's, under a lease of its own: reported once and left to it, not fought over.
    auto const theirs = other.grantLease(10s);
    other.put(key, R"({"epoch":"5"})", theirs);
    CHECK_FALSE(maintainUntil([&] { return other.get(key)->value != R"({"epoch":"5"})"; }));
    CHECK(reports.count(TicketPublication::Outcome::Failed) == 3);
    // Theirs gone with its lease, the key is put again.
    other.revokeLease(theirs);
    REQUIRE(maintainUntil([&] { return other.get(key).has_value(); }));
    CHECK(other.get(key)->value == R"({"epoch":"4"})");
    CHECK(reports.count(TicketPublication::Outcome::Failed) == 3);
    CHECK(reports.count(TicketPublication::Outcome::Published) == 4);
}
