// What makes a request malformed before any handler sees it: the request target as the client sent it (control bytes
// raw or percent-encoded, bad percent-encoding, bytes that are not UTF-8 once decoded) and each header.
#pragma once

#include <string>
#include <string_view>

namespace mxl
{
    // Why the request target is refused, or "" when it is well formed.
    [[nodiscard]] std::string requestTargetProblem(std::string_view target);

    // Why a header is refused (a name that is not an HTTP token, a NUL or control byte in its value; tabs are allowed
    // in values), or "".
    [[nodiscard]] std::string headerProblem(std::string_view name, std::string_view value);

    // Well-formed UTF-8: no overlong forms, surrogates or values past U+10FFFF.
    [[nodiscard]] bool isUtf8(std::string_view text);
}
