// The public keys of an authorization server, from its JWKS document (RFC 7517): the RSA keys for signatures, each
// with its key id. Keys of other types or uses are passed over, so that a server publishing them beside its RSA keys
// still works.
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

struct evp_pkey_st;

namespace mxl::auth
{
    class JsonWebKeysError : public std::runtime_error
    {
    public:
        using std::runtime_error::runtime_error;
    };

    // RFC 7515 leaves "kid" optional; a server that rotates its keys publishes two or three at a time.
    inline constexpr std::size_t keysTriedWithoutKeyId = 4;

    struct JsonWebKey
    {
        // "" where the server gives none.
        std::string keyId;
        std::shared_ptr<evp_pkey_st> key;
    };

    class JsonWebKeys
    {
    public:
        JsonWebKeys() = default;

        // Throws JsonWebKeysError when the document is not a JWKS, or holds no RSA signing key.
        explicit JsonWebKeys(nlohmann::json const& document);

        // The keys a token with `keyId` may be signed with: that one; where the token names none, every key if there are
        // at most keysTriedWithoutKeyId, else none (a token checked against each of thousands would cost the endpoint's
        // thread tens of milliseconds).
        [[nodiscard]] std::vector<JsonWebKey> candidates(std::string const& keyId) const;

        [[nodiscard]] bool empty() const noexcept
        {
            return _keys.empty();
        }

        [[nodiscard]] std::size_t size() const noexcept
        {
            return _keys.size();
        }

        // Whether a key has the id `keyId`.
        [[nodiscard]] bool holds(std::string const& keyId) const;

        // Whether `other` holds keys of the same ids, in the same order.
        [[nodiscard]] bool sameKeyIds(JsonWebKeys const& other) const;

    private:
        std::vector<JsonWebKey> _keys;
    };
}
