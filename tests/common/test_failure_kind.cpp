// The kind of a failure (common/FailureKind.hpp): what a retried step says once per outage. Numbers that change from answer to
// answer (counters, timestamps, request ids, parse-error columns) and what the peer sent, quoted, do not make a new
// kind; other words do.
#include "common/FailureKind.hpp"

#include <doctest/doctest.h>

using mxl::failureKind;

TEST_CASE("failure kinds: numbers, timestamps, hexadecimal ids and quoted text are masked, words are kept")
{
    CHECK(failureKind("not JSON: parse error at line 1, column 15") == failureKind("not JSON: parse error at line 1, column 17"));
    CHECK(failureKind(R"(HTTP 500: {"debug":"request 2026-11-30T15:22:56.123Z"})") ==
          failureKind(R"(HTTP 500: {"debug":"request 2026-11-30T15:22:57.004Z"})"));
    CHECK(failureKind("request 3f2a9c0e-77b1") == "request #-#");
    CHECK(failureKind("invalid literal; last read: '  {g'; expected string literal") ==
          failureKind("invalid literal; last read: ' {g'; expected string literal"));
    CHECK(failureKind("etcd 127.0.0.1:2379: get '/mxl/tickets/a' failed") == "etcd #.#.#.#:#: get '*' failed");
    CHECK(failureKind("not JSON: the document nests deeper than 64 levels") == "not JSON: the document nests deeper than # levels");
    CHECK(failureKind("not JSON: parse error at line 1, column 2") != failureKind("not a JSON object"));
    CHECK(failureKind("cannot be used: it is for provider shm") != failureKind("cannot be used: the fabrics library cannot read it"));
}
