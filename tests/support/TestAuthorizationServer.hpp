// An IS-10 authorization server of a test's own: RSA keys made per instance, its RFC 8414 metadata and JWKS served on
// 127.0.0.1 (lib/http's endpoint, HTTP or HTTPS), and access tokens signed RS512 with whatever claims a test asks for, including the
// ones a resource server must refuse (expired, of another audience, signed with a key it does not publish).
#pragma once

#include <HttpRoutes.hpp>
#include <TlsFiles.hpp>

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mxl::test
{
    class TestAuthorizationServer
    {
    public:
        // `tls`: served over HTTPS with this certificate (for 127.0.0.1), else over HTTP.
        explicit TestAuthorizationServer(std::optional<TlsFiles> const& tls = std::nullopt);
        ~TestAuthorizationServer();

        TestAuthorizationServer(TestAuthorizationServer const&) = delete;
        TestAuthorizationServer& operator=(TestAuthorizationServer const&) = delete;

        // http[s]://127.0.0.1:<port>
        [[nodiscard]] std::string const& issuer() const noexcept
        {
            return _issuer;
        }

        // IS-10 claims: this issuer, subject "operator@test", client "test-client", issued now, expiring in
        // `lifetime` (negative: already expired), for `audience`, with `permissions` as the x-nmos-* claims, e.g.
        // {{"x-nmos-connection", {{"read", {"*"}}, {"write", {"single/*"}}}}}.
        [[nodiscard]] nlohmann::json claims(std::string const& audience, nlohmann::json const& permissions,
                                            std::chrono::seconds lifetime = std::chrono::minutes{10}) const;

        // A compact JWS of `claims`, signed with the published key.
        [[nodiscard]] std::string token(nlohmann::json const& claims) const;
        // The same without "kid" in its header.
        [[nodiscard]] std::string tokenWithoutKeyId(nlohmann::json const& claims) const;
        // The same, signed with a key of the same id that the JWKS does not hold (a forgery).
        [[nodiscard]] std::string forgedToken(nlohmann::json const& claims) const;

        // A new key, published beside the first under the id "key-<n>"; tokens are signed with it from now on.
        void rotateKey();

        // A confidential client of the token endpoint (client credentials, client_secret_basic): its tokens name
        // `audiences` and grant `permissions`, and live `lifetime`.
        void addClient(std::string const& id, std::string const& secret, std::vector<std::string> const& audiences,
                       nlohmann::json const& permissions, std::chrono::seconds lifetime = std::chrono::minutes{10});

        // From now on the metadata names `url` as the token endpoint.
        void announceTokenEndpoint(std::string url);

        // From now on the token endpoint answers `expiresIn` as "expires_in" in place of the client's lifetime (null: no
        // "expires_in" at all).
        void answerExpiresIn(nlohmann::json expiresIn);

        // From now until releaseTokenAnswers() (or the end) the token endpoint answers no request (a server that hangs).
        void holdTokenAnswers();
        void releaseTokenAnswers();
        // Whether the token endpoint received a request within `limit` after it had received `count`.
        [[nodiscard]] bool waitForTokenRequest(std::size_t count, std::chrono::milliseconds limit) const;

        // The tokens the token endpoint gave, oldest first.
        [[nodiscard]] std::vector<std::string> issuedTokens() const;

        // How often the JWKS was fetched.
        [[nodiscard]] int jwksFetches() const noexcept
        {
            return _jwksFetches.load();
        }

    private:
        struct Keys;

        HttpReply issue(HttpRequest const& request);

        std::unique_ptr<Keys> _keys;
        std::atomic<int> _jwksFetches{0};
        std::string _issuer;
    };
}
