#include "TestAuthorizationServer.hpp"

#include <HttpEndpoint.hpp>
#include <common/Base64.hpp>

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include <condition_variable>
#include <mutex>

namespace mxl::test
{
    namespace
    {
        using Key = std::shared_ptr<EVP_PKEY>;

        Key newRsaKey()
        {
            Key key{EVP_RSA_gen(2048), &::EVP_PKEY_free};
            REQUIRE(key);
            return key;
        }

        std::string base64UrlOf(EVP_PKEY* key, char const* parameter)
        {
            BIGNUM* number = nullptr;
            REQUIRE(::EVP_PKEY_get_bn_param(key, parameter, &number) == 1);
            std::string bytes(static_cast<std::size_t>(BN_num_bytes(number)), '\0');
            ::BN_bn2bin(number, reinterpret_cast<unsigned char*>(bytes.data()));
            ::BN_free(number);
            return encodeBase64Url(bytes);
        }

        // client_secret_basic's parts are form-encoded (RFC 6749 section 2.3.1).
        std::string formDecoded(std::string_view text)
        {
            std::string decoded;
            for (std::size_t i = 0; i < text.size(); ++i)
            {
                if (text[i] == '%' && i + 2 < text.size())
                {
                    decoded += static_cast<char>(std::stoi(std::string{text.substr(i + 1, 2)}, nullptr, 16));
                    i += 2;
                }
                else
                {
                    decoded += text[i] == '+' ? ' ' : text[i];
                }
            }
            return decoded;
        }

        std::string sign(std::string const& keyId, EVP_PKEY* key, nlohmann::json const& claims)
        {
            nlohmann::json header{{"typ", "JWT"}, {"alg", "RS512"}};
            if (!keyId.empty())
            {
                header["kid"] = keyId;
            }
            auto const input = encodeBase64Url(header.dump()) + "." + encodeBase64Url(claims.dump());
            std::unique_ptr<EVP_MD_CTX, decltype(&::EVP_MD_CTX_free)> context{::EVP_MD_CTX_new(), &::EVP_MD_CTX_free};
            REQUIRE(::EVP_DigestSignInit(context.get(), nullptr, ::EVP_sha512(), nullptr, key) == 1);
            std::size_t length = 0;
            REQUIRE(::EVP_DigestSign(context.get(), nullptr, &length, reinterpret_cast<unsigned char const*>(input.data()), input.size()) ==
                    1);
            std::string signature(length, '\0');
            REQUIRE(::EVP_DigestSign(context.get(), reinterpret_cast<unsigned char*>(signature.data()), &length,
                                     reinterpret_cast<unsigned char const*>(input.data()), input.size()) == 1);
            signature.resize(length);
            return input + "." + encodeBase64Url(signature);
        }
    }

    struct TestAuthorizationServer::Keys
    {
        struct Client
        {
            std::string secret;
            std::vector<std::string> audiences;
            nlohmann::json permissions;
            std::chrono::seconds lifetime;
        };

        mutable std::mutex mutex;
        std::map<std::string, Client> clients;
        std::vector<std::string> issued;
        std::optional<nlohmann::json> expiresIn;
        mutable std::condition_variable changed;
        bool holding = false;
        std::size_t tokenRequests = 0;
        std::string tokenEndpoint;
        std::vector<std::pair<std::string, Key>> published{{"key-1", newRsaKey()}};
        Key foreign = newRsaKey();
        std::unique_ptr<HttpEndpoint> endpoint;

        nlohmann::json jwks() const
        {
            std::lock_guard const lock{mutex};
            auto keys = nlohmann::json::array();
            for (auto const& [id, key] : published)
            {
                keys.push_back({{"kty", "RSA"},
                                {"use", "sig"},
                                {"alg", "RS512"},
                                {"kid", id},
                                {"n", base64UrlOf(key.get(), OSSL_PKEY_PARAM_RSA_N)},
                                {"e", base64UrlOf(key.get(), OSSL_PKEY_PARAM_RSA_E)}});
            }
            return {{"keys", keys}};
        }
    };

    TestAuthorizationServer::TestAuthorizationServer(std::optional<TlsFiles> const& tls)
        : _keys{std::make_unique<Keys>()}
    {
        std::map<std::string, HttpResource> resources{{"/.well-known/oauth-authorization-server",
                                                       {"application/json",
                                                        [this]
                                                        {
                                                            std::unique_lock lock{_keys->mutex};
                                                            auto const tokenEndpoint = _keys->tokenEndpoint;
                                                            lock.unlock();
                                                            return std::optional<std::string>{nlohmann::json{
                                                                {"issuer", _issuer},
                                                                {"jwks_uri", _issuer + "/jwks"},
                                                                {"token_endpoint", tokenEndpoint},
                                                                {"grant_types_supported", {"client_credentials"}},
                                                                {"token_endpoint_auth_methods_supported",
                                                                 {"client_secret_basic"}}}.dump()};
                                                        }}},
                                                      {"/jwks",
                                                       {"application/json", [this]
                                                        {
                                                            ++_jwksFetches;
                                                            return std::optional<std::string>{_keys->jwks().dump()};
                                                        }}}};
        std::map<std::string, HttpHandler> handlers{{"/token", [this](HttpRequest const& request) { return issue(request); }}};
        _keys->endpoint = std::make_unique<HttpEndpoint>(ListenAddress{"127.0.0.1", 0, tls}, std::move(resources), std::move(handlers));
        _issuer = fmt::format("{}://127.0.0.1:{}", tls ? "https" : "http", _keys->endpoint->port());
        announceTokenEndpoint(_issuer + "/token");
    }

    TestAuthorizationServer::~TestAuthorizationServer()
    {
        // A held answer would keep the endpoint from stopping.
        releaseTokenAnswers();
    }

    nlohmann::json TestAuthorizationServer::claims(std::string const& audience, nlohmann::json const& permissions,
                                                   std::chrono::seconds lifetime) const
    {
        auto const now = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
        nlohmann::json claims{{"iss", _issuer},
                              {"sub", "operator@test"},
                              {"aud", {audience}},
                              {"iat", lifetime.count() < 0 ? now + 2 * lifetime.count() : now},
                              {"exp", now + lifetime.count()},
                              {"client_id", "test-client"}};
        claims.update(permissions);
        return claims;
    }

    std::string TestAuthorizationServer::token(nlohmann::json const& claims) const
    {
        std::lock_guard const lock{_keys->mutex};
        auto const& [id, key] = _keys->published.back();
        return sign(id, key.get(), claims);
    }

    std::string TestAuthorizationServer::tokenWithoutKeyId(nlohmann::json const& claims) const
    {
        std::lock_guard const lock{_keys->mutex};
        return sign({}, _keys->published.back().second.get(), claims);
    }

    std::string TestAuthorizationServer::forgedToken(nlohmann::json const& claims) const
    {
        std::lock_guard const lock{_keys->mutex};
        return sign(_keys->published.back().first, _keys->foreign.get(), claims);
    }

    void TestAuthorizationServer::rotateKey()
    {
        auto key = newRsaKey();
        std::lock_guard const lock{_keys->mutex};
        _keys->published.emplace_back(fmt::format("key-{}", _keys->published.size() + 1), std::move(key));
    }

    void TestAuthorizationServer::addClient(std::string const& id, std::string const& secret, std::vector<std::string> const& audiences,
                                            nlohmann::json const& permissions, std::chrono::seconds lifetime)
    {
        std::lock_guard const lock{_keys->mutex};
        _keys->clients[id] = {secret, audiences, permissions, lifetime};
    }

    void TestAuthorizationServer::announceTokenEndpoint(std::string url)
    {
        std::lock_guard const lock{_keys->mutex};
        _keys->tokenEndpoint = std::move(url);
    }

    void TestAuthorizationServer::answerExpiresIn(nlohmann::json expiresIn)
    {
        std::lock_guard const lock{_keys->mutex};
        _keys->expiresIn = std::move(expiresIn);
    }

    void TestAuthorizationServer::holdTokenAnswers()
    {
        std::lock_guard const lock{_keys->mutex};
        _keys->holding = true;
    }

    void TestAuthorizationServer::releaseTokenAnswers()
    {
        std::lock_guard const lock{_keys->mutex};
        _keys->holding = false;
        _keys->changed.notify_all();
    }

    bool TestAuthorizationServer::waitForTokenRequest(std::size_t count, std::chrono::milliseconds limit) const
    {
        std::unique_lock lock{_keys->mutex};
        return _keys->changed.wait_for(lock, limit, [&] { return _keys->tokenRequests > count; });
    }

    std::vector<std::string> TestAuthorizationServer::issuedTokens() const
    {
        std::lock_guard const lock{_keys->mutex};
        return _keys->issued;
    }

    HttpReply TestAuthorizationServer::issue(HttpRequest const& request)
    {
        auto const refuse = [](unsigned status, char const* error) {
            return HttpReply{status, "application/json", nlohmann::json{{"error", error}}.dump()};
        };
        if (request.method != "POST" || request.path != "/token")
        {
            return refuse(405, "invalid_request");
        }
        {
            std::unique_lock lock{_keys->mutex};
            ++_keys->tokenRequests;
            _keys->changed.notify_all();
            _keys->changed.wait(lock, [&] { return !_keys->holding; });
        }
        if (request.body.find("grant_type=client_credentials") == std::string::npos)
        {
            return refuse(400, "unsupported_grant_type");
        }
        constexpr std::string_view basic = "Basic ";
        auto const credentials =
            request.authorization.starts_with(basic) ? decodeBase64(request.authorization.substr(basic.size())) : std::nullopt;
        auto const colon = credentials ? credentials->find(':') : std::string::npos;
        if (colon == std::string::npos)
        {
            return refuse(401, "invalid_client");
        }
        auto const id = formDecoded(credentials->substr(0, colon));
        std::unique_lock lock{_keys->mutex};
        auto const client = _keys->clients.find(id);
        if (client == _keys->clients.end() || client->second.secret != formDecoded(credentials->substr(colon + 1)))
        {
            return refuse(401, "invalid_client");
        }
        auto const settings = client->second;
        lock.unlock();
        auto grant = claims(settings.audiences.front(), settings.permissions, settings.lifetime);
        grant["aud"] = settings.audiences;
        grant["sub"] = id;
        grant["client_id"] = id;
        auto const accessToken = token(grant);
        lock.lock();
        _keys->issued.push_back(accessToken);
        nlohmann::json answer{{"access_token", accessToken}, {"token_type", "Bearer"}, {"expires_in", settings.lifetime.count()}};
        if (_keys->expiresIn)
        {
            answer.erase("expires_in");
            if (!_keys->expiresIn->is_null())
            {
                answer["expires_in"] = *_keys->expiresIn;
            }
        }
        return {200, "application/json", answer.dump()};
    }
}
