#include "HttpsTrust.hpp"

#include <common/BoundedFile.hpp>
#include <common/SecretFile.hpp>

#include <fmt/format.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#include <mutex>

namespace mxl
{
    namespace
    {
        std::mutex trustMutex;
        std::shared_ptr<SSL_CTX> trusted;
        std::string trustedCaFile;
        std::optional<TlsFiles> clientCertificate;

        void presentCertificate(SSL_CTX* context, TlsFiles const& files)
        {
            std::string keyText;
            try
            {
                static_cast<void>(readBoundedFile(files.certificate));
                keyText = readSecretFile(files.key);
            }
            catch (FileReadError const& error)
            {
                throw HttpsTrustError{error.what()};
            }
            if (::SSL_CTX_use_certificate_chain_file(context, files.certificate.c_str()) != 1)
            {
                throw HttpsTrustError{
                    fmt::format("'{}' is not a PEM certificate chain: {}", files.certificate, openSslError("no certificate in it"))};
            }
            std::unique_ptr<BIO, decltype(&::BIO_free)> bio{::BIO_new_mem_buf(keyText.data(), static_cast<int>(keyText.size())),
                                                            &::BIO_free};
            std::unique_ptr<EVP_PKEY, decltype(&::EVP_PKEY_free)> key{::PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr),
                                                                      &::EVP_PKEY_free};
            if (!key || ::SSL_CTX_use_PrivateKey(context, key.get()) != 1 || ::SSL_CTX_check_private_key(context) != 1)
            {
                throw HttpsTrustError{fmt::format("'{}' is not the PEM private key of the first certificate in '{}': {}", files.key,
                                                  files.certificate, openSslError("they do not match"))};
            }
        }

        std::shared_ptr<SSL_CTX> makeContext(std::string const& caFile, std::optional<TlsFiles> const& client)
        {
            std::shared_ptr<SSL_CTX> context{::SSL_CTX_new(::TLS_client_method()), &::SSL_CTX_free};
            if (!context)
            {
                throw HttpsTrustError{"cannot make a TLS client context: " + openSslError("out of memory")};
            }
            ::SSL_CTX_set_min_proto_version(context.get(), TLS1_2_VERSION);
            ::SSL_CTX_set_verify(context.get(), SSL_VERIFY_PEER, nullptr);
            // An answer ends where the server closes the connection (HTTP/1.0); the client checks Content-Length where
            // the server sends one.
            ::SSL_CTX_set_options(context.get(), SSL_OP_IGNORE_UNEXPECTED_EOF);
            if (client)
            {
                presentCertificate(context.get(), *client);
            }
            if (caFile.empty())
            {
                ::SSL_CTX_set_default_verify_paths(context.get());
                return context;
            }
            try
            {
                // Read first for the same refusals every named file gets (a FIFO, a directory, a huge file).
                static_cast<void>(readBoundedFile(caFile, 16 * defaultMaxFileBytes));
            }
            catch (FileReadError const& error)
            {
                throw HttpsTrustError{error.what()};
            }
            if (::SSL_CTX_load_verify_locations(context.get(), caFile.c_str(), nullptr) != 1)
            {
                throw HttpsTrustError{
                    fmt::format("'{}' is not a PEM bundle of CA certificates: {}", caFile, openSslError("no certificate in it"))};
            }
            return context;
        }
    }

    void setHttpsTrust(std::string const& caFile)
    {
        std::lock_guard const lock{trustMutex};
        trusted = makeContext(caFile, clientCertificate);
        trustedCaFile = caFile;
    }

    void setHttpsClientCertificate(std::optional<TlsFiles> const& files)
    {
        std::lock_guard const lock{trustMutex};
        trusted = makeContext(trustedCaFile, files);
        clientCertificate = files;
    }

    std::shared_ptr<SSL_CTX> httpsContext()
    {
        std::lock_guard const lock{trustMutex};
        if (!trusted)
        {
            trusted = makeContext(trustedCaFile, clientCertificate);
        }
        return trusted;
    }

    std::string openSslError(std::string_view whenNone)
    {
        auto const code = ::ERR_get_error();
        ::ERR_clear_error();
        if (code == 0)
        {
            return std::string{whenNone};
        }
        char text[256];
        ::ERR_error_string_n(code, text, sizeof text);
        return text;
    }
}
