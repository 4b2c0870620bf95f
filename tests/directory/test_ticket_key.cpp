// The key layout and etcd:// URLs, with the messages a typo gets.
#include <DirectoryError.hpp>
#include <TicketKey.hpp>

#include <doctest/doctest.h>

using namespace mxl::directory;

TEST_CASE("ticket keys are /mxl/tickets/<domain>/<flow id>, and a domain name with a '/' is refused")
{
    CHECK(ticketKey("studio-a", "7a1c52e4-3d0b-4f6e-9c8a-51b2e0d47f19") == "/mxl/tickets/studio-a/7a1c52e4-3d0b-4f6e-9c8a-51b2e0d47f19");
    CHECK_THROWS_WITH_AS(static_cast<void>(ticketKey("a/b", "x")),
                         "'a/b' cannot name a domain in a ticket key: it must be non-empty and hold no '/'", DirectoryError);
    CHECK_THROWS_AS(static_cast<void>(ticketKey("", "x")), DirectoryError);
}

TEST_CASE("etcd:// URLs split into endpoint and key, malformed ones name themselves")
{
    auto const location = parseEtcdUrl("etcd://192.0.2.5:2379/mxl/tickets/studio-a/7a1c52e4-3d0b-4f6e-9c8a-51b2e0d47f19");
    CHECK(location.endpoint == "192.0.2.5:2379");
    CHECK(location.key == "/mxl/tickets/studio-a/7a1c52e4-3d0b-4f6e-9c8a-51b2e0d47f19");
    CHECK(parseEtcdUrl("etcd://[::1]:2379/mxl/tickets/").key == "/mxl/tickets/");
    CHECK(isEtcdUrl("etcd://h:1/k"));
    CHECK_FALSE(isEtcdUrl("http://h:1/k"));
    for (auto const* bad :
         {"etcd://192.0.2.5/mxl/tickets/a/b", "etcd://192.0.2.5:2379", "etcd://192.0.2.5:2379/", "etcd://:2379/k", "etcd://h:/k"})
    {
        INFO(bad);
        CHECK_THROWS_WITH_AS(static_cast<void>(parseEtcdUrl(bad)),
                             doctest::Contains((std::string{"'"} + bad + "' is not etcd://host:port/key").c_str()), DirectoryError);
    }
}
