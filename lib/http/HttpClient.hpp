// Every HTTP request the tools make (tickets, IS-04 registration and queries, IS-05 hand-overs, etcd's JSON gateway):
// HTTP/1.0 over a plain socket, or TLS for https:// (verified as HttpsTrust says), with one deadline for the whole
// exchange, resolving the host (HostResolver), connecting, handshaking, sending and reading, so that a name server or a
// peer that is unreachable, silent or drips its answer never holds the caller's thread past it, and an answer of at most
// a bounded size.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <variant>

namespace mxl
{
    struct HttpAnswer
    {
        int status = 0;
        std::string body;
    };

    struct HttpFailure
    {
        std::string reason;
    };

    inline constexpr std::size_t defaultMaxAnswerBytes = 1024 * 1024;

    // The bearer token to send to `url` (IS-10), or "" for none. Asked only for https:// URLs: a token never travels in
    // the clear.
    using BearerTokenSource = std::function<std::string(std::string const& url)>;

    // From now on, for every exchange of this process that does not carry its own Authorization (httpPostForm's).
    void setBearerTokenSource(BearerTokenSource source);

    // Whether `url` is one the client can ask: http:// or https://, without a space or a control byte.
    [[nodiscard]] bool isHttpUrl(std::string_view url) noexcept;
    // Whether `url` is https://. Both take the scheme in any case, as RFC 3986 has it.
    [[nodiscard]] bool isHttpsUrl(std::string_view url) noexcept;
    // `url` with its scheme in lower case: the form in which an issuer is compared with tokens' "iss" claim.
    [[nodiscard]] std::string lowercaseScheme(std::string url);

    // `method` of the http[s]://host[:port]/path `url`, with `jsonBody` as an application/json body unless it is empty;
    // the answer, whatever its status, or why there is none.
    std::variant<HttpAnswer, HttpFailure> httpExchange(std::string const& method, std::string const& url, std::string const& jsonBody,
                                                       std::chrono::milliseconds timeout,
                                                       std::size_t maxAnswerBytes = defaultMaxAnswerBytes);

    // As httpExchange, with `authorization` as the Authorization header in place of a bearer token (etcd's own tokens).
    std::variant<HttpAnswer, HttpFailure> httpExchangeAuthorized(std::string const& method, std::string const& url,
                                                                 std::string const& jsonBody, std::string const& authorization,
                                                                 std::chrono::milliseconds timeout,
                                                                 std::size_t maxAnswerBytes = defaultMaxAnswerBytes);

    // A POST of an application/x-www-form-urlencoded body with `authorization` as its Authorization header (an OAuth 2.0
    // token request with client_secret_basic); the answer, whatever its status, or why there is none.
    std::variant<HttpAnswer, HttpFailure> httpPostForm(std::string const& url, std::string const& form, std::string const& authorization,
                                                       std::chrono::milliseconds timeout);

    // The body of a GET answered 200, or why there is none.
    std::variant<std::string, HttpFailure> httpGet(std::string const& url, std::chrono::milliseconds timeout);

    // `method` of `path` at `origin` (http[s]://host:port): the answer, whatever its status, or why there is none
    // ("<method> <origin><path> failed: <reason>").
    std::variant<HttpAnswer, std::string> httpRequest(std::string const& origin, std::string const& method, std::string const& path,
                                                      std::string const& jsonBody, std::chrono::milliseconds timeout);

    // How much of a peer's answer a log line quotes.
    inline constexpr std::size_t quotedAnswerChars = 200;

    // "<method> <origin><path> answered <status>: <body>", for a log line about an answer that was not the one wanted: the
    // body cut to quotedAnswerChars and escaped (common/PrintableText.hpp).
    std::string describeAnswer(std::string const& origin, std::string const& method, std::string const& path, HttpAnswer const& answer);
}
