#include "AccessPolicy.hpp"

#include "AccessToken.hpp"

#include <fmt/format.h>

#include <sstream>

namespace mxl::auth
{
    namespace
    {
        bool scopeNames(nlohmann::json const& claims, std::string const& api)
        {
            auto const scope = claims.value("scope", nlohmann::json{});
            if (!scope.is_string())
            {
                return false;
            }
            std::istringstream words{scope.get<std::string>()};
            std::string word;
            while (words >> word)
            {
                if (word == api)
                {
                    return true;
                }
            }
            return false;
        }
    }

    Access accessOf(std::string_view method) noexcept
    {
        return method == "GET" || method == "HEAD" || method == "OPTIONS" ? Access::Read : Access::Write;
    }

    std::string permissionProblem(nlohmann::json const& claims, ApiRequest const& request)
    {
        auto const claimName = "x-nmos-" + request.api;
        auto const claim = claims.value(claimName, nlohmann::json{});
        if (request.base && request.access == Access::Read && (claim.is_object() || scopeNames(claims, request.api)))
        {
            return {};
        }
        auto const permission = request.access == Access::Read ? "read" : "write";
        if (!claim.is_object())
        {
            return fmt::format("the token has no {} claim", claimName);
        }
        auto const patterns = claim.value(permission, nlohmann::json{});
        for (auto const& pattern : patterns.is_array() ? patterns : nlohmann::json::array())
        {
            if (pattern.is_string() && wildcardMatch(pattern.get<std::string>(), request.path))
            {
                return {};
            }
        }
        return fmt::format("the token's {} claim does not permit {} of '{}'", claimName, permission, request.path);
    }
}
