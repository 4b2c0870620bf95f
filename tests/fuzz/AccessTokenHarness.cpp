// Bearer tokens and request paths as a node's endpoint gets them from anyone (lib/auth): the first line is the path,
// the rest the token. Nothing may throw or crash; a token that parses has JSON-object parts and RS512, and its claims
// and permissions are judged without exception, the same way twice.
#include "FuzzCheck.hpp"
#include "FuzzEntry.hpp"

#include <AccessPolicy.hpp>
#include <AccessToken.hpp>

#include <chrono>
#include <string_view>

using mxl::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size)
{
    std::string_view const input{reinterpret_cast<char const*>(data), size};
    auto const newline = input.find('\n');
    auto const path = input.substr(0, newline);
    auto const token = newline == std::string_view::npos ? std::string_view{} : input.substr(newline + 1);

    auto const parsed = mxl::auth::parseToken(token);
    if (auto const* signedToken = std::get_if<mxl::auth::SignedToken>(&parsed))
    {
        check(signedToken->header.is_object() && signedToken->claims.is_object(), "a parsed token's parts are JSON objects");
        check(signedToken->header.value("alg", "") == "RS512", "a parsed token is RS512");
        auto const now = std::chrono::system_clock::time_point{std::chrono::seconds{1'800'000'000}};
        auto const problem = mxl::auth::claimsProblem(signedToken->claims, {"https://auth.example", "rx1.example"}, now);
        check(problem == mxl::auth::claimsProblem(signedToken->claims, {"https://auth.example", "rx1.example"}, now),
              "claims are judged the same way twice");
        for (auto const access : {mxl::auth::Access::Read, mxl::auth::Access::Write})
        {
            for (auto const base : {false, true})
            {
                mxl::auth::ApiRequest const request{"connection", std::string{path}, access, base};
                check(mxl::auth::permissionProblem(signedToken->claims, request) ==
                          mxl::auth::permissionProblem(signedToken->claims, request),
                      "permissions are judged the same way twice");
            }
        }
    }
    else
    {
        check(!std::get<std::string>(parsed).empty(), "a refused token says why");
    }
    check(mxl::auth::wildcardMatch(path, path) || path.find('*') != std::string_view::npos, "a pattern without '*' matches itself");
    check(mxl::auth::wildcardMatch("*", path), "'*' matches everything");
    return 0;
}
