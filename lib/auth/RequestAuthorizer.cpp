#include "RequestAuthorizer.hpp"

#include <common/Log.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace mxl::auth
{
    namespace
    {
        std::vector<std::string_view> segmentsOf(std::string_view path)
        {
            std::vector<std::string_view> segments;
            while (!path.empty())
            {
                auto const slash = path.find('/');
                auto const segment = path.substr(0, slash);
                if (!segment.empty())
                {
                    segments.push_back(segment);
                }
                path = slash == std::string_view::npos ? std::string_view{} : path.substr(slash + 1);
            }
            return segments;
        }

        // RFC 6750's quoted strings: the description may not hold a quote or a backslash.
        std::string quotable(std::string text)
        {
            std::replace_if(
                text.begin(), text.end(), [](char c) { return c == '"' || c == '\\' || c < 0x20; }, '\'');
            return text;
        }

        std::string claimText(nlohmann::json const& claims, char const* name)
        {
            auto const value = claims.value(name, nlohmann::json{});
            return value.is_string() ? value.get<std::string>() : "?";
        }
    }

    RequestAuthorizer::RequestAuthorizer(std::shared_ptr<AuthorizationServer> server, std::string audience,
                                         std::map<std::string, ApiRequest> ownPaths)
        : _server{std::move(server)}
        , _expected{_server->issuer(), std::move(audience)}
        , _ownPaths{std::move(ownPaths)}
    {
    }

    HttpReply RequestAuthorizer::refuse(HttpRequest const& request, unsigned status, char const* error, std::string const& why) const
    {
        log::info("auth: refused {} {}: {}", request.method, request.path, why);
        auto reply = errorReply(status, why);
        auto challenge = fmt::format("Bearer realm=\"{}\"", quotable(_expected.audience));
        if (error != nullptr)
        {
            challenge += fmt::format(", error=\"{}\", error_description=\"{}\"", error, quotable(why));
        }
        reply.headers.emplace_back("WWW-Authenticate", std::move(challenge));
        return reply;
    }

    std::optional<HttpReply> RequestAuthorizer::refusal(HttpRequest const& request) const
    {
        // A browser's CORS preflight never carries credentials, and its answer holds no data.
        if (request.method == "OPTIONS")
        {
            return std::nullopt;
        }
        ApiRequest asked{{}, {}, accessOf(request.method), false};
        auto const segments = segmentsOf(request.path);
        if (std::any_of(segments.begin(), segments.end(), [](auto segment) { return segment == "." || segment == ".."; }))
        {
            return refuse(request, 403, "insufficient_scope", "a path with '.' or '..' segments is not permitted");
        }
        if (auto const own = _ownPaths.find(request.path); own != _ownPaths.end())
        {
            asked = own->second;
        }
        else if (segments.size() >= 2 && segments[0] == "x-nmos")
        {
            asked.api = segments[1];
            asked.base = segments.size() <= 3;
            if (segments.size() > 3)
            {
                auto const versionEnd = request.path.find(segments[2]) + segments[2].size() + 1;
                asked.path = request.path.substr(std::min(versionEnd, request.path.size()));
            }
        }
        else
        {
            // "/", "/x-nmos" and paths the endpoint does not serve (404): nothing to protect.
            return std::nullopt;
        }

        auto const& header = request.authorization;
        if (header.empty())
        {
            return refuse(request, 401, nullptr, "no bearer access token (Authorization: Bearer <token>)");
        }
        constexpr std::string_view scheme = "Bearer ";
        if (header.size() <= scheme.size() ||
            !std::equal(scheme.begin(), scheme.end(), header.begin(), [](char a, char b) { return std::tolower(a) == std::tolower(b); }))
        {
            return refuse(request, 401, "invalid_request", "the Authorization header is not 'Bearer <token>'");
        }
        auto const parsed = parseToken(std::string_view{header}.substr(scheme.size()));
        if (auto const* problem = std::get_if<std::string>(&parsed))
        {
            return refuse(request, 401, "invalid_token", *problem);
        }
        auto const& token = std::get<SignedToken>(parsed);
        auto const keys = _server->keysFor(token.keyId());
        if (auto const* problem = std::get_if<std::string>(&keys))
        {
            return refuse(request, 401, "invalid_token", *problem);
        }
        auto const& held = *std::get<std::shared_ptr<JsonWebKeys const>>(keys);
        if (!token.keyId().empty() && !held.holds(token.keyId()))
        {
            return refuse(request, 401, "invalid_token",
                          fmt::format("the token's key id '{}' is not known (yet) among the authorization server's keys; they are "
                                      "fetched again",
                                      token.keyId()));
        }
        if (token.keyId().empty() && held.size() > keysTriedWithoutKeyId)
        {
            return refuse(request, 401, "invalid_token",
                          fmt::format("the token names no key (\"kid\") and the authorization server publishes {} keys; a token "
                                      "without \"kid\" is checked only where it publishes at most {}",
                                      held.size(), keysTriedWithoutKeyId));
        }
        if (!signatureVerifies(token, held))
        {
            return refuse(request, 401, "invalid_token",
                          fmt::format("the token's signature is not verified by the authorization server's keys{}",
                                      token.keyId().empty() ? std::string{} : fmt::format(" (key id '{}')", token.keyId())));
        }
        if (auto const problem = claimsProblem(token.claims, _expected, std::chrono::system_clock::now()); !problem.empty())
        {
            return refuse(request, 401, "invalid_token", problem);
        }
        if (auto const problem = permissionProblem(token.claims, asked); !problem.empty())
        {
            return refuse(request, 403, "insufficient_scope", problem);
        }
        log::debug("auth: allowed {} {} for subject '{}' (client '{}')", request.method, request.path, claimText(token.claims, "sub"),
                   claimText(token.claims, token.claims.contains("client_id") ? "client_id" : "azp"));
        return std::nullopt;
    }
}
