#include "JsonWebKeys.hpp"

#include <common/Base64.hpp>

#include <fmt/format.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

#include <algorithm>

namespace mxl::auth
{
    namespace
    {
        using Bignum = std::unique_ptr<BIGNUM, decltype(&::BN_free)>;

        Bignum bignumOf(nlohmann::json const& key, char const* member)
        {
            auto const value = key.value(member, nlohmann::json{});
            auto const bytes = value.is_string() ? decodeBase64Url(value.get<std::string>()) : std::nullopt;
            if (!bytes || bytes->empty())
            {
                throw JsonWebKeysError{fmt::format("an RSA key's \"{}\" is not base64url", member)};
            }
            return {::BN_bin2bn(reinterpret_cast<unsigned char const*>(bytes->data()), static_cast<int>(bytes->size()), nullptr),
                    &::BN_free};
        }

        std::shared_ptr<evp_pkey_st> rsaKey(nlohmann::json const& key)
        {
            auto const modulus = bignumOf(key, "n");
            auto const exponent = bignumOf(key, "e");
            std::unique_ptr<OSSL_PARAM_BLD, decltype(&::OSSL_PARAM_BLD_free)> builder{::OSSL_PARAM_BLD_new(), &::OSSL_PARAM_BLD_free};
            ::OSSL_PARAM_BLD_push_BN(builder.get(), OSSL_PKEY_PARAM_RSA_N, modulus.get());
            ::OSSL_PARAM_BLD_push_BN(builder.get(), OSSL_PKEY_PARAM_RSA_E, exponent.get());
            std::unique_ptr<OSSL_PARAM, decltype(&::OSSL_PARAM_free)> params{::OSSL_PARAM_BLD_to_param(builder.get()), &::OSSL_PARAM_free};
            std::unique_ptr<EVP_PKEY_CTX, decltype(&::EVP_PKEY_CTX_free)> context{::EVP_PKEY_CTX_new_from_name(nullptr, "RSA", nullptr),
                                                                                  &::EVP_PKEY_CTX_free};
            EVP_PKEY* made = nullptr;
            if (!params || !context || ::EVP_PKEY_fromdata_init(context.get()) != 1 ||
                ::EVP_PKEY_fromdata(context.get(), &made, EVP_PKEY_PUBLIC_KEY, params.get()) != 1)
            {
                throw JsonWebKeysError{"an RSA key's \"n\" and \"e\" are not a public key"};
            }
            // IS-10 tokens are RS512; short keys are refused as a verifier should (RFC 7518 asks for 2048 bits or more).
            if (::EVP_PKEY_get_bits(made) < 2048)
            {
                ::EVP_PKEY_free(made);
                throw JsonWebKeysError{"an RSA key is shorter than 2048 bits"};
            }
            return {made, &::EVP_PKEY_free};
        }
    }

    JsonWebKeys::JsonWebKeys(nlohmann::json const& document)
    {
        auto const keys = document.is_object() ? document.value("keys", nlohmann::json{}) : nlohmann::json{};
        if (!keys.is_array())
        {
            throw JsonWebKeysError{"not a JWKS document: no \"keys\" array"};
        }
        for (auto const& key : keys)
        {
            if (!key.is_object() || key.value("kty", "") != "RSA" || key.value("use", "sig") != "sig" ||
                key.value("alg", "RS512") != "RS512")
            {
                continue;
            }
            auto const id = key.value("kid", nlohmann::json{});
            _keys.push_back({id.is_string() ? id.get<std::string>() : std::string{}, rsaKey(key)});
        }
        if (_keys.empty())
        {
            throw JsonWebKeysError{"the JWKS document holds no RSA key for RS512 signatures"};
        }
    }

    std::vector<JsonWebKey> JsonWebKeys::candidates(std::string const& keyId) const
    {
        if (keyId.empty())
        {
            return _keys.size() <= keysTriedWithoutKeyId ? _keys : std::vector<JsonWebKey>{};
        }
        std::vector<JsonWebKey> matching;
        for (auto const& key : _keys)
        {
            if (key.keyId == keyId)
            {
                matching.push_back(key);
            }
        }
        return matching;
    }

    bool JsonWebKeys::holds(std::string const& keyId) const
    {
        return std::any_of(_keys.begin(), _keys.end(), [&](JsonWebKey const& key) { return key.keyId == keyId; });
    }

    bool JsonWebKeys::sameKeyIds(JsonWebKeys const& other) const
    {
        return std::equal(_keys.begin(), _keys.end(), other._keys.begin(), other._keys.end(),
                          [](JsonWebKey const& mine, JsonWebKey const& theirs) { return mine.keyId == theirs.keyId; });
    }
}
