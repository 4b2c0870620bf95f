#include "AccessToken.hpp"

#include <common/Base64.hpp>
#include <common/BoundedJson.hpp>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <openssl/evp.h>

#include <algorithm>
#include <cctype>

namespace mxl::auth
{
    namespace
    {
        std::optional<nlohmann::json> jsonPart(std::string_view part)
        {
            auto const text = decodeBase64Url(part);
            if (!text)
            {
                return std::nullopt;
            }
            auto document = parseJsonOrDiscarded(*text);
            if (!document.is_object())
            {
                return std::nullopt;
            }
            return document;
        }

        std::string lowered(std::string_view text)
        {
            std::string lower{text};
            std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
            return lower;
        }

        // An "aud" entry as a host name pattern: any scheme, and anything after the host, left out.
        std::string audienceHost(std::string_view entry)
        {
            if (auto const scheme = entry.find("://"); scheme != std::string_view::npos)
            {
                entry.remove_prefix(scheme + 3);
            }
            entry = entry.substr(0, entry.find_first_of(":/"));
            return lowered(entry);
        }

        std::string utcText(std::int64_t seconds)
        {
            return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(static_cast<std::time_t>(seconds)));
        }

        // A NumericDate claim (RFC 7519): seconds, possibly fractional.
        std::optional<std::int64_t> dateOf(nlohmann::json const& claims, char const* name)
        {
            auto const value = claims.value(name, nlohmann::json{});
            if (!value.is_number())
            {
                return std::nullopt;
            }
            return static_cast<std::int64_t>(value.get<double>());
        }
    }

    std::string SignedToken::keyId() const
    {
        auto const id = header.value("kid", nlohmann::json{});
        return id.is_string() ? id.get<std::string>() : std::string{};
    }

    std::variant<SignedToken, std::string> parseToken(std::string_view compact)
    {
        auto const firstDot = compact.find('.');
        auto const secondDot = firstDot == std::string_view::npos ? firstDot : compact.find('.', firstDot + 1);
        if (secondDot == std::string_view::npos || compact.find('.', secondDot + 1) != std::string_view::npos)
        {
            return std::string{"the token is not a compact JWS (three base64url parts joined by '.')"};
        }
        auto header = jsonPart(compact.substr(0, firstDot));
        auto claims = jsonPart(compact.substr(firstDot + 1, secondDot - firstDot - 1));
        auto signature = decodeBase64Url(compact.substr(secondDot + 1));
        if (!header || !claims || !signature)
        {
            return std::string{"the token's header or claims are not base64url JSON objects, or its signature is not base64url"};
        }
        if (header->value("alg", nlohmann::json{}) != "RS512")
        {
            return fmt::format("the token is signed with {}, not RS512 as IS-10 requires", header->value("alg", nlohmann::json{}).dump());
        }
        return SignedToken{std::move(*header), std::move(*claims), std::string{compact.substr(0, secondDot)}, std::move(*signature)};
    }

    bool signatureVerifies(SignedToken const& token, JsonWebKeys const& keys)
    {
        for (auto const& candidate : keys.candidates(token.keyId()))
        {
            std::unique_ptr<EVP_MD_CTX, decltype(&::EVP_MD_CTX_free)> context{::EVP_MD_CTX_new(), &::EVP_MD_CTX_free};
            if (::EVP_DigestVerifyInit(context.get(), nullptr, ::EVP_sha512(), nullptr, candidate.key.get()) == 1 &&
                ::EVP_DigestVerify(context.get(), reinterpret_cast<unsigned char const*>(token.signature.data()), token.signature.size(),
                                   reinterpret_cast<unsigned char const*>(token.signingInput.data()), token.signingInput.size()) == 1)
            {
                return true;
            }
        }
        return false;
    }

    std::string claimsProblem(nlohmann::json const& claims, TokenExpectations const& expected, std::chrono::system_clock::time_point now)
    {
        auto const nowSeconds = std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
        if (claims.value("iss", nlohmann::json{}) != expected.issuer)
        {
            return fmt::format("the token was issued by {}, not by '{}'", claims.value("iss", nlohmann::json{}).dump(), expected.issuer);
        }
        if (!claims.value("sub", nlohmann::json{}).is_string())
        {
            return "the token has no \"sub\" claim";
        }
        auto const expires = dateOf(claims, "exp");
        if (!expires)
        {
            return "the token has no \"exp\" claim";
        }
        if (*expires < nowSeconds)
        {
            return fmt::format("the token expired at {}", utcText(*expires));
        }
        if (auto const issued = dateOf(claims, "iat"); issued && *issued > nowSeconds)
        {
            return fmt::format("the token's \"iat\" ({}) is in the future", utcText(*issued));
        }
        if (auto const notBefore = dateOf(claims, "nbf"); notBefore && *notBefore > nowSeconds)
        {
            return fmt::format("the token is not valid before {}", utcText(*notBefore));
        }
        auto audience = claims.value("aud", nlohmann::json{});
        if (audience.is_string())
        {
            audience = nlohmann::json::array({audience});
        }
        if (!audience.is_array())
        {
            return "the token has no \"aud\" claim";
        }
        auto const self = lowered(expected.audience);
        for (auto const& entry : audience)
        {
            if (entry.is_string() && wildcardMatch(audienceHost(entry.get<std::string>()), self))
            {
                return {};
            }
        }
        return fmt::format("the token's audience {} does not include '{}'", audience.dump(), expected.audience);
    }

    bool wildcardMatch(std::string_view pattern, std::string_view text)
    {
        // Greedy matching with one backtrack point: linear in practice, and no recursion a hostile pattern can deepen.
        std::size_t p = 0;
        std::size_t t = 0;
        std::size_t star = std::string_view::npos;
        std::size_t resume = 0;
        while (t < text.size())
        {
            if (p < pattern.size() && pattern[p] == '*')
            {
                star = p++;
                resume = t;
            }
            else if (p < pattern.size() && pattern[p] == text[t])
            {
                ++p;
                ++t;
            }
            else if (star != std::string_view::npos)
            {
                p = star + 1;
                t = ++resume;
            }
            else
            {
                return false;
            }
        }
        while (p < pattern.size() && pattern[p] == '*')
        {
            ++p;
        }
        return p == pattern.size();
    }
}
