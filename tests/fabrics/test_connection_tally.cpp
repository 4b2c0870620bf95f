// A target's tally of its initiators' connections (lib/fabrics/core ConnectionTally): a connection that comes up while
// another is up is counted, one that comes up alone or after the other went away is not, and a new setup starts with
// none up while the count goes on.
#include "fabrics/core/ConnectionTally.hpp"

#include <doctest/doctest.h>

using mxl::fabrics::ConnectionChange;
using mxl::fabrics::ConnectionTally;

TEST_CASE("connection tally: a connection that comes up beside another counts, one after the other went away does not")
{
    ConnectionTally tally;
    tally.changed(ConnectionChange{1, true, {}});
    CHECK(tally.counts().connected == 1);
    CHECK(tally.counts().joinedWhileConnected == 0);
    tally.changed(ConnectionChange{2, true, {}});
    CHECK(tally.counts().connected == 2);
    CHECK(tally.counts().joinedWhileConnected == 1);
    // Told twice, it is still one connection.
    tally.changed(ConnectionChange{2, true, {}});
    CHECK(tally.counts().joinedWhileConnected == 1);
    tally.changed(ConnectionChange{1, false, "the initiator closed the connection"});
    tally.changed(ConnectionChange{2, false, "the initiator closed the connection"});
    tally.changed(ConnectionChange{3, true, {}});
    CHECK(tally.counts().connected == 1);
    CHECK(tally.counts().joinedWhileConnected == 1);
    // A new setup's transport starts with no connection up.
    tally.restart();
    CHECK(tally.counts().connected == 0);
    tally.changed(ConnectionChange{1, true, {}});
    CHECK(tally.counts().joinedWhileConnected == 1);
}
