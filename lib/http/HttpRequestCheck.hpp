// What makes a request malformed before any handler sees it: the request target as the client sent it (control bytes
// raw or percent-encoded, bad percent-encoding, bytes that are not UTF-8 once decoded), each header, and the framing
// the headers give together.
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

    // A request's headers, taken one by one: the first problem with one of them (headerProblem), or with the framing they
    // give together: more than one Content-Length, or a Content-Length beside a Transfer-Encoding (RFC 9112, section
    // 6.3), which a proxy in front and this server could each read as a different body.
    class HeaderCheck
    {
    public:
        // False once a problem was found: the rest need not be looked at.
        bool take(std::string_view name, std::string_view value);

        // Why the headers taken are refused, or "".
        [[nodiscard]] std::string problem() const;

    private:
        std::string _problem;
        unsigned _contentLengths = 0;
        bool _transferEncoding = false;
    };

    // Well-formed UTF-8: no overlong forms, surrogates or values past U+10FFFF.
    [[nodiscard]] bool isUtf8(std::string_view text);
}
