// A retried step's failures in the log (common/OutageLog.hpp): the first three distinct reasons of an outage, none
// repeated, and a new outage after a success.
#include "common/OutageLog.hpp"

#include <doctest/doctest.h>

TEST_CASE("an outage logs its first three distinct reasons, the third marked last, and a success starts another")
{
    mxl::OutageLog outage;
    bool last = false;
    CHECK(outage.admit("answered 500: request 1", last));
    CHECK_FALSE(last);
    CHECK_FALSE(outage.admit("answered 500: request 1", last));
    CHECK(outage.admit("answered 500: request 2", last));
    CHECK_FALSE(last);
    CHECK(outage.admit("cannot connect", last));
    CHECK(last);
    CHECK_FALSE(outage.admit("answered 500: request 4", last));
    CHECK_FALSE(outage.admit("cannot connect again", last));
    outage.recovered();
    CHECK(outage.admit("answered 500: request 1", last));
    CHECK_FALSE(last);
}
