// HTTPS on lib/http's endpoint and client (BCP-003-01): certificates of a test CA, TLS versions, host names, trust, and
// certificates renewed on disk while the endpoint serves.
#include <HttpClient.hpp>
#include <HttpEndpoint.hpp>
#include <HttpsTrust.hpp>
#include <TempDomain.hpp>
#include <TestCa.hpp>

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <arpa/inet.h>
#include <filesystem>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace std::chrono_literals;

namespace
{
    std::map<std::string, mxl::HttpResource> ticketResource()
    {
        return {{"/ticket", {"application/json", [] { return std::optional<std::string>{R"({"ticket": "secret"})"}; }}}};
    }

    std::string bodyOf(std::variant<std::string, mxl::HttpFailure> const& got)
    {
        if (auto const* failure = std::get_if<mxl::HttpFailure>(&got))
        {
            return "failed: " + failure->reason;
        }
        return std::get<std::string>(got);
    }

    // Connects with OpenSSL at exactly `version` (trusting nothing: only the handshake is looked at); the peer
    // certificate's common name, or "" when the handshake fails. With `request`, sends it and puts the whole answer in
    // `answer`.
    std::string handshakeAt(std::uint16_t port, int version, std::string const& request = {}, std::string* answer = nullptr)
    {
        std::unique_ptr<SSL_CTX, decltype(&::SSL_CTX_free)> context{::SSL_CTX_new(::TLS_client_method()), &::SSL_CTX_free};
        ::SSL_CTX_set_min_proto_version(context.get(), version);
        ::SSL_CTX_set_max_proto_version(context.get(), version);
        // OpenSSL 3 refuses TLS 1.0 and 1.1 itself at its default security level: level 0 lets it offer them, so that
        // the refusal seen is the server's.
        ::SSL_CTX_set_security_level(context.get(), 0);
        ::SSL_CTX_set_cipher_list(context.get(), "DEFAULT:@SECLEVEL=0");
        auto const fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(port);
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
        timeval timeout{10, 0};
        ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
        std::unique_ptr<SSL, decltype(&::SSL_free)> tls{::SSL_new(context.get()), &::SSL_free};
        ::SSL_set_fd(tls.get(), fd);
        std::string commonName;
        if (::SSL_connect(tls.get()) == 1)
        {
            auto* peer = ::SSL_get1_peer_certificate(tls.get());
            char name[256] = {};
            ::X509_NAME_get_text_by_NID(::X509_get_subject_name(peer), NID_commonName, name, sizeof name);
            ::X509_free(peer);
            commonName = name;
            if (answer != nullptr)
            {
                ::SSL_write(tls.get(), request.data(), static_cast<int>(request.size()));
                char chunk[4096];
                for (int got = 0; (got = ::SSL_read(tls.get(), chunk, sizeof chunk)) > 0;)
                {
                    answer->append(chunk, static_cast<std::size_t>(got));
                }
            }
            ::SSL_shutdown(tls.get());
        }
        ::close(fd);
        return commonName;
    }
}

TEST_CASE("an HTTPS endpoint serves TLS 1.2 and 1.3 only, to clients that trust its CA and name a host its certificate names")
{
    mxl::test::TempDomain const directory{"https-endpoint"};
    mxl::test::TestCa const facility{directory.path(), "facility"};
    mxl::test::TestCa const stranger{directory.path(), "stranger"};
    auto const server = facility.issue("node-a", {"127.0.0.1", "localhost"});
    mxl::HttpEndpoint endpoint{{"127.0.0.1", 0, mxl::TlsFiles{server.certificate, server.key}}, ticketResource()};
    REQUIRE(endpoint.secure());
    CHECK(endpoint.tlsDescription().find("subject 'CN=node-a', issuer 'CN=facility test CA'") == 0);
    auto const url = fmt::format("https://127.0.0.1:{}/ticket", endpoint.port());

    mxl::setHttpsTrust(facility.caFile());
    CHECK(bodyOf(mxl::httpGet(url, 10s)) == R"({"ticket": "secret"})");
    CHECK(bodyOf(mxl::httpGet(fmt::format("https://localhost:{}/ticket", endpoint.port()), 10s)) == R"({"ticket": "secret"})");

    // Plain HTTP to the TLS port gets no answer.
    CHECK(bodyOf(mxl::httpGet(fmt::format("http://127.0.0.1:{}/ticket", endpoint.port()), 10s)).starts_with("failed: "));

    // A client of another facility does not trust it, and says why.
    mxl::setHttpsTrust(stranger.caFile());
    CHECK(bodyOf(mxl::httpGet(url, 10s)) ==
          "failed: the server's certificate is not trusted: self-signed certificate in certificate chain");

    // Trusted, but for a host the certificate does not name.
    auto const elsewhere = facility.issue("node-b", {"198.51.100.7"});
    mxl::HttpEndpoint misnamed{{"127.0.0.1", 0, mxl::TlsFiles{elsewhere.certificate, elsewhere.key}}, ticketResource()};
    mxl::setHttpsTrust(facility.caFile());
    CHECK(bodyOf(mxl::httpGet(fmt::format("https://127.0.0.1:{}/ticket", misnamed.port()), 10s)) ==
          "failed: the server's certificate is not trusted: IP address mismatch");

    CHECK(handshakeAt(endpoint.port(), TLS1_3_VERSION) == "node-a");
    CHECK(handshakeAt(endpoint.port(), TLS1_2_VERSION) == "node-a");
    // BCP-003-01's HSTS: clients that came over HTTPS are told to keep to it.
    std::string answer;
    handshakeAt(endpoint.port(), TLS1_3_VERSION, "GET /ticket HTTP/1.0\r\n\r\n", &answer);
    CHECK(answer.substr(0, answer.find("\r\n")).ends_with(" 200 OK"));
    CHECK(answer.find("\r\nStrict-Transport-Security: max-age=31536000\r\n") != std::string::npos);
    CHECK(handshakeAt(endpoint.port(), TLS1_1_VERSION).empty());
    CHECK(handshakeAt(endpoint.port(), TLS1_VERSION).empty());
    mxl::setHttpsTrust({});
}

TEST_CASE("a certificate renewed on disk is served from the reload on, and one that cannot be used leaves the one in use")
{
    mxl::test::TempDomain const directory{"https-reload"};
    mxl::test::TestCa const facility{directory.path(), "facility"};
    auto const first = facility.issue("first", {"127.0.0.1"});
    mxl::HttpEndpoint endpoint{{"127.0.0.1", 0, mxl::TlsFiles{first.certificate, first.key}}, ticketResource()};
    CHECK(handshakeAt(endpoint.port(), TLS1_3_VERSION) == "first");

    auto const renewed = facility.issue("renewed", {"127.0.0.1"});
    std::filesystem::copy_file(renewed.certificate, first.certificate, std::filesystem::copy_options::overwrite_existing);
    std::filesystem::copy_file(renewed.key, first.key, std::filesystem::copy_options::overwrite_existing);
    CHECK(endpoint.reloadTls().find("subject 'CN=renewed'") == 0);
    CHECK(handshakeAt(endpoint.port(), TLS1_3_VERSION) == "renewed");
    mxl::setHttpsTrust(facility.caFile());
    CHECK(bodyOf(mxl::httpGet(fmt::format("https://127.0.0.1:{}/ticket", endpoint.port()), 10s)) == R"({"ticket": "secret"})");
    mxl::setHttpsTrust({});

    // Half a renewal (the new certificate, the old key) is refused, and the pair in use stays.
    auto const other = facility.issue("other", {"127.0.0.1"});
    std::filesystem::copy_file(other.certificate, first.certificate, std::filesystem::copy_options::overwrite_existing);
    CHECK_THROWS_WITH_AS(endpoint.reloadTls(),
                         fmt::format("'{}' is not the private key of the first certificate in '{}'", first.key, first.certificate).c_str(),
                         mxl::TlsFilesError);
    CHECK(handshakeAt(endpoint.port(), TLS1_3_VERSION) == "renewed");
}

TEST_CASE("certificate files that cannot serve are refused naming the file: a loose key, an expired certificate, a missing file")
{
    mxl::test::TempDomain const directory{"https-refused"};
    mxl::test::TestCa const facility{directory.path(), "facility"};
    auto const server = facility.issue("node", {"127.0.0.1"});
    auto const listen = [&](mxl::test::IssuedCertificate const& files) {
        return mxl::HttpEndpoint{{"127.0.0.1", 0, mxl::TlsFiles{files.certificate, files.key}}, ticketResource()};
    };

    std::filesystem::permissions(server.key, std::filesystem::perms::group_read | std::filesystem::perms::others_read,
                                 std::filesystem::perm_options::add);
    CHECK_THROWS_WITH_AS(listen(server),
                         fmt::format("'{}': it has mode 0644: a key must be readable by its owner only (chmod 600)", server.key).c_str(),
                         mxl::TlsFilesError);

    auto const expired = facility.issue("expired", {"127.0.0.1"}, -48h, -1h);
    CHECK_THROWS_WITH_AS(listen(expired), doctest::Contains(fmt::format("'{}': the certificate has expired", expired.certificate).c_str()),
                         mxl::TlsFilesError);

    CHECK_THROWS_WITH_AS(listen({directory.str() + "/absent.pem", server.key}),
                         fmt::format("'{}/absent.pem': No such file or directory", directory.str()).c_str(), mxl::TlsFilesError);

    CHECK_THROWS_WITH_AS(mxl::setHttpsTrust(server.key), doctest::Contains("is not a PEM bundle of CA certificates"), mxl::HttpsTrustError);
}
