// What a verified token may do at a path, as IS-10's "Resource Servers" path rules and the x-nmos-* claims' access
// permission objects say: read (GET, HEAD, OPTIONS) and write (POST, PUT, PATCH, DELETE) per API, each a list of path
// patterns below the API version ('*' for any run of characters).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace mxl::auth
{
    enum class Access
    {
        Read,
        Write,
    };

    [[nodiscard]] Access accessOf(std::string_view method) noexcept;

    // A request as the policy sees it: the API ("node", "connection"), and the path below its version ("" for the API's
    // or the version's own root).
    struct ApiRequest
    {
        std::string api;
        std::string path;
        Access access = Access::Read;
        // The API root or a version root, where a claim or a scope naming the API is enough to read.
        bool base = false;
    };

    // "" when `claims` permit the request, else why not ("the token's x-nmos-connection claim does not permit write to
    // 'single/receivers/.../staged'").
    [[nodiscard]] std::string permissionProblem(nlohmann::json const& claims, ApiRequest const& request);
}
