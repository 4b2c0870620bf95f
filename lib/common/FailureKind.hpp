// The kind of a failure, for saying each kind once per outage: the failure's text with what changes from answer to
// answer masked (counters, timestamps, request ids, parse-error columns, the peer's own text quoted back), so that a
// peer answering "request 17", "request 18", ... is one kind, while a failure in other words (not JSON, then not an
// object) is another.
#pragma once

#include <string>

namespace mxl
{
    // `why` with every run of hexadecimal digits that holds a decimal digit masked as '#', and what it quotes in single
    // quotes as '*'.
    [[nodiscard]] std::string failureKind(std::string const& why);
}
