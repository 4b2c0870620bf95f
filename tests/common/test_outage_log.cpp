// A retried step's failures in the log (common/OutageLog.hpp): the first three kinds of failure of an outage, none
// repeated, and a new outage after a success.
#include "common/OutageLog.hpp"

#include <doctest/doctest.h>

TEST_CASE("an outage logs its first three kinds of failure, the third marked last, and a success starts another")
{
    mxl::OutageLog outage;
    bool last = false;
    CHECK_FALSE(outage.ongoing());
    CHECK(outage.admit("answered 500: request 1", last));
    CHECK(outage.ongoing());
    CHECK_FALSE(last);
    CHECK_FALSE(outage.admit("answered 500: request 1", last));
    // Only the request's number differs: the same kind.
    CHECK_FALSE(outage.admit("answered 500: request 2", last));
    CHECK(outage.admit("answered 503: the registry is starting", last));
    CHECK_FALSE(last);
    CHECK(outage.admit("cannot connect", last));
    CHECK(last);
    CHECK_FALSE(outage.admit("not JSON", last));
    CHECK_FALSE(outage.admit("cannot connect again", last));
    CHECK(outage.ongoing());
    outage.recovered();
    CHECK_FALSE(outage.ongoing());
    CHECK(outage.admit("answered 500: request 7", last));
    CHECK_FALSE(last);
}

TEST_CASE("an outage log allowed one kind marks the first failure last")
{
    mxl::OutageLog outage{1};
    bool last = false;
    CHECK(outage.admit("cannot connect", last));
    CHECK(last);
    CHECK_FALSE(outage.admit("answered 500", last));
}
