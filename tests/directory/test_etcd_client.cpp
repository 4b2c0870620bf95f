// The etcd client against a real etcd: values byte-exact, prefixes exact, leases that hold keys and let them go.
#include <DirectoryError.hpp>
#include <EtcdClient.hpp>

#include "EtcdServer.hpp"
#include "Skip.hpp"

#include <doctest/doctest.h>

#include <thread>

using namespace mxl::directory;
using mxl::test::EtcdServer;

namespace
{
    using namespace std::chrono_literals;

    // Polls `key` until it is gone; the time that took, or nullopt at the deadline.
    std::optional<std::chrono::steady_clock::duration> waitUntilGone(EtcdClient& client, std::string const& key,
                                                                     std::chrono::seconds deadline)
    {
        auto const start = std::chrono::steady_clock::now();
        while (std::chrono::steady_clock::now() - start < deadline)
        {
            if (!client.get(key))
            {
                return std::chrono::steady_clock::now() - start;
            }
            std::this_thread::sleep_for(100ms);
        }
        return std::nullopt;
    }
}

TEST_CASE("etcd client: put, get, list by prefix and remove, values byte-exact")
{
    MXL_SKIP_IF(EtcdServer::unavailable());
    EtcdServer etcd;
    EtcdClient client{etcd.endpoint(), 5s};

    // A ticket-like value with every byte value a JSON text could hold, and more.
    std::string value = R"({"epoch":"17991115717892061375","fabricAddress":"AgAhKn8AAAE="})";
    for (int byte = 0; byte < 256; ++byte)
    {
        value.push_back(static_cast<char>(byte));
    }
    client.put("/mxl/tickets/a/1", value, 0);
    client.put("/mxl/tickets/a/2", "two", 0);
    client.put("/mxl/tickets/b/1", "other domain", 0);
    client.put("/mxl/ticketsX", "not under the prefix", 0);

    auto const found = client.get("/mxl/tickets/a/1");
    REQUIRE(found.has_value());
    CHECK(found->key == "/mxl/tickets/a/1");
    CHECK(found->value == value);
    CHECK(found->lease == 0);
    CHECK_FALSE(client.get("/mxl/tickets/a/3").has_value());

    auto const listed = client.list("/mxl/tickets/a/");
    REQUIRE(listed.size() == 2);
    CHECK(listed[0].key == "/mxl/tickets/a/1");
    CHECK(listed[1].key == "/mxl/tickets/a/2");
    CHECK(listed[1].value == "two");
    CHECK(client.list("/mxl/tickets/").size() == 3);

    client.remove("/mxl/tickets/a/1");
    CHECK_FALSE(client.get("/mxl/tickets/a/1").has_value());
    CHECK(client.list("/mxl/tickets/a/").size() == 1);
}

TEST_CASE("etcd client: a leased key lives while kept alive and expires with its lease")
{
    MXL_SKIP_IF(EtcdServer::unavailable());
    EtcdServer etcd;
    EtcdClient client{etcd.endpoint(), 5s};
    auto const lease = client.grantLease(2s);
    CHECK(lease != 0);
    client.put("/mxl/tickets/leased", "ticket", lease);
    CHECK(client.get("/mxl/tickets/leased")->lease == lease);

    // Four seconds of keep-alives, twice the lease: the key stays.
    auto const keepUntil = std::chrono::steady_clock::now() + 4s;
    while (std::chrono::steady_clock::now() < keepUntil)
    {
        REQUIRE(client.keepAlive(lease));
        std::this_thread::sleep_for(500ms);
    }
    CHECK(client.get("/mxl/tickets/leased").has_value());

    // Left alone, it goes: after the 2 s lease, give or take etcd's expiry sweep, and well within a generous deadline.
    auto const gone = waitUntilGone(client, "/mxl/tickets/leased", 30s);
    REQUIRE(gone.has_value());
    CHECK(*gone >= 1s);
    CHECK_FALSE(client.keepAlive(lease));

    // Revoking takes the key at once.
    auto const second = client.grantLease(60s);
    client.put("/mxl/tickets/revoked", "ticket", second);
    client.revokeLease(second);
    CHECK_FALSE(client.get("/mxl/tickets/revoked").has_value());
}

TEST_CASE("etcd client: an unreachable or malformed endpoint fails with a message naming it")
{
    CHECK_THROWS_WITH_AS(EtcdClient("localhost", 1s), "etcd endpoint 'localhost' is not host:port", DirectoryError);
    CHECK_THROWS_WITH_AS(EtcdClient("http://h:2379", 1s), "etcd endpoint 'http://h:2379' is not host:port", DirectoryError);

    // A port nobody listens on: freed by an etcd that ran there.
    std::string endpoint;
    if (!EtcdServer::unavailable())
    {
        EtcdServer etcd;
        endpoint = etcd.endpoint();
    }
    else
    {
        endpoint = "127.0.0.1:9";
    }
    EtcdClient client{endpoint, 1s};
    CHECK_THROWS_WITH_AS(static_cast<void>(client.get("/mxl/tickets/x")),
                         doctest::Contains(("etcd " + endpoint + ": get '/mxl/tickets/x' failed: ").c_str()), DirectoryError);
}
