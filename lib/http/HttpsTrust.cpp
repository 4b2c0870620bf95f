#include "HttpsTrust.hpp"

#include <common/BoundedFile.hpp>

#include <fmt/format.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include <mutex>

namespace mxl
{
    namespace
    {
        std::mutex trustMutex;
        std::shared_ptr<SSL_CTX> trusted;

        std::string lastOpenSslError()
        {
            auto const code = ::ERR_get_error();
            ::ERR_clear_error();
            if (code == 0)
            {
                return "no certificate in it";
            }
            char text[256];
            ::ERR_error_string_n(code, text, sizeof text);
            return text;
        }

        std::shared_ptr<SSL_CTX> makeContext(std::string const& caFile)
        {
            std::shared_ptr<SSL_CTX> context{::SSL_CTX_new(::TLS_client_method()), &::SSL_CTX_free};
            if (!context)
            {
                throw HttpsTrustError{"cannot make a TLS client context: " + lastOpenSslError()};
            }
            ::SSL_CTX_set_min_proto_version(context.get(), TLS1_2_VERSION);
            ::SSL_CTX_set_verify(context.get(), SSL_VERIFY_PEER, nullptr);
            // An answer ends where the server closes the connection (HTTP/1.0); the client checks Content-Length where
            // the server sends one.
            ::SSL_CTX_set_options(context.get(), SSL_OP_IGNORE_UNEXPECTED_EOF);
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
                throw HttpsTrustError{fmt::format("'{}' is not a PEM bundle of CA certificates: {}", caFile, lastOpenSslError())};
            }
            return context;
        }
    }

    void setHttpsTrust(std::string const& caFile)
    {
        auto context = makeContext(caFile);
        std::lock_guard const lock{trustMutex};
        trusted = std::move(context);
    }

    std::shared_ptr<SSL_CTX> httpsContext()
    {
        std::lock_guard const lock{trustMutex};
        if (!trusted)
        {
            trusted = makeContext({});
        }
        return trusted;
    }
}
