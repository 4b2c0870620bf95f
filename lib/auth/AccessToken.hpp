// IS-10 access tokens: a compact JWS (RFC 7515) signed RS512 by the authorization server, its claims checked as IS-10's
// "Behaviour: Access Tokens" and "Resource Servers" say: issuer, audience, expiry, issue and not-before times.
#pragma once

#include "JsonWebKeys.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <string>
#include <string_view>
#include <variant>

namespace mxl::auth
{
    struct SignedToken
    {
        nlohmann::json header;
        nlohmann::json claims;
        // The first two parts as sent, which the signature covers.
        std::string signingInput;
        std::string signature;

        [[nodiscard]] std::string keyId() const;
    };

    // The token's parts, or why it is not a compact JWS of JSON objects signed RS512.
    std::variant<SignedToken, std::string> parseToken(std::string_view compact);

    // Whether one of the keys the token may be signed with verifies its signature.
    [[nodiscard]] bool signatureVerifies(SignedToken const& token, JsonWebKeys const& keys);

    struct TokenExpectations
    {
        // The authorization server's issuer URL, as its tokens' "iss" must be.
        std::string issuer;
        // The name this resource server identifies itself with in "aud" (a host name; "aud" entries may carry a scheme
        // and '*' wildcards).
        std::string audience;
    };

    // "" when the claims admit the token here at `now`, else why not ("the token expired at ...").
    [[nodiscard]] std::string claimsProblem(nlohmann::json const& claims, TokenExpectations const& expected,
                                            std::chrono::system_clock::time_point now);

    // Whether `pattern` ('*' standing for any run of characters) matches all of `text`.
    [[nodiscard]] bool wildcardMatch(std::string_view pattern, std::string_view text);
}
