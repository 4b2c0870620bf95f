#include "TlsCredentials.hpp"

#include <common/BoundedFile.hpp>
#include <common/SecretFile.hpp>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <gnutls/abstract.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include <array>
#include <ctime>

namespace mxl
{
    namespace
    {
        // A handshake that took a pair ends within the endpoint's idle timeout; this is far past it.
        constexpr std::chrono::seconds retiredKeptFor{120};
        // Leaf, intermediates and, where the file has it, the root.
        constexpr unsigned maxChainLength = 16;

        gnutls_datum_t datumOf(std::string const& text)
        {
            return {reinterpret_cast<unsigned char*>(const_cast<char*>(text.data())), static_cast<unsigned>(text.size())};
        }

        std::string readFile(std::string const& path, bool secret)
        {
            try
            {
                return secret ? readSecretFile(path) : readBoundedFile(path);
            }
            catch (FileReadError const& error)
            {
                throw TlsFilesError{error.what()};
            }
        }

        std::string distinguishedName(gnutls_x509_crt_t certificate, bool issuer)
        {
            gnutls_datum_t name{};
            if ((issuer ? ::gnutls_x509_crt_get_issuer_dn3(certificate, &name, 0) : ::gnutls_x509_crt_get_dn3(certificate, &name, 0)) < 0)
            {
                return "?";
            }
            std::string text{reinterpret_cast<char const*>(name.data), name.size};
            ::gnutls_free(name.data);
            return text;
        }
    }

    struct TlsCredentials::Pair
    {
        std::array<gnutls_pcert_st, maxChainLength> chain{};
        unsigned chainLength = 0;
        gnutls_privkey_t key = nullptr;
        std::string description;

        explicit Pair(TlsFiles const& files)
        {
            auto const chainText = readFile(files.certificate, false);
            auto const keyText = readFile(files.key, true);
            auto const chainData = datumOf(chainText);
            auto const keyData = datumOf(keyText);

            // GnuTLS's own check that the key belongs to the leaf, the same one a server's credentials get.
            gnutls_certificate_credentials_t check = nullptr;
            ::gnutls_certificate_allocate_credentials(&check);
            auto const matched = ::gnutls_certificate_set_x509_key_mem2(check, &chainData, &keyData, GNUTLS_X509_FMT_PEM, nullptr, 0);
            ::gnutls_certificate_free_credentials(check);
            if (matched == GNUTLS_E_CERTIFICATE_KEY_MISMATCH)
            {
                throw TlsFilesError{
                    fmt::format("'{}' is not the private key of the first certificate in '{}'", files.key, files.certificate)};
            }
            if (matched < 0)
            {
                throw TlsFilesError{fmt::format("'{}' and '{}' are not a PEM certificate chain and its PEM private key: {}",
                                                files.certificate, files.key, ::gnutls_strerror(matched))};
            }

            chainLength = maxChainLength;
            if (auto const imported = ::gnutls_pcert_list_import_x509_raw(chain.data(), &chainLength, &chainData, GNUTLS_X509_FMT_PEM,
                                                                          GNUTLS_X509_CRT_LIST_FAIL_IF_UNSORTED);
                imported < 0)
            {
                chainLength = 0;
                throw TlsFilesError{fmt::format("'{}': {} (the leaf first, then each issuer, at most {} certificates)", files.certificate,
                                                ::gnutls_strerror(imported), maxChainLength)};
            }
            ::gnutls_privkey_init(&key);
            if (auto const imported = ::gnutls_privkey_import_x509_raw(key, &keyData, GNUTLS_X509_FMT_PEM, nullptr, 0); imported < 0)
            {
                release();
                throw TlsFilesError{fmt::format("'{}': {}", files.key, ::gnutls_strerror(imported))};
            }

            gnutls_x509_crt_t leaf = nullptr;
            ::gnutls_x509_crt_init(&leaf);
            ::gnutls_x509_crt_import(leaf, &chain[0].cert, GNUTLS_X509_FMT_DER);
            auto const expires = ::gnutls_x509_crt_get_expiration_time(leaf);
            description = fmt::format("subject '{}', issuer '{}', valid until {:%Y-%m-%dT%H:%M:%SZ}", distinguishedName(leaf, false),
                                      distinguishedName(leaf, true), fmt::gmtime(expires));
            ::gnutls_x509_crt_deinit(leaf);
            if (expires <= std::time(nullptr))
            {
                release();
                throw TlsFilesError{fmt::format("'{}': the certificate has expired ({})", files.certificate, description)};
            }
        }

        ~Pair()
        {
            release();
        }

        Pair(Pair const&) = delete;
        Pair& operator=(Pair const&) = delete;

        void release()
        {
            for (unsigned i = 0; i < chainLength; ++i)
            {
                ::gnutls_pcert_deinit(&chain[i]);
            }
            chainLength = 0;
            ::gnutls_privkey_deinit(key);
            key = nullptr;
        }
    };

    TlsCredentials::TlsCredentials(TlsFiles files)
        : _files{std::move(files)}
        , _current{std::make_shared<Pair>(_files)}
    {
    }

    TlsCredentials::~TlsCredentials() = default;

    void TlsCredentials::reload()
    {
        auto fresh = std::make_shared<Pair>(_files);
        auto const now = std::chrono::steady_clock::now();
        std::lock_guard const lock{_mutex};
        std::erase_if(_retired, [&](auto const& retired) { return now - retired.first > retiredKeptFor; });
        _retired.emplace_back(now, std::move(_current));
        _current = std::move(fresh);
    }

    std::string TlsCredentials::describe() const
    {
        std::lock_guard const lock{_mutex};
        return _current->description;
    }

    void TlsCredentials::select(gnutls_pcert_st** chain, unsigned* chainLength, gnutls_privkey_st** key)
    {
        std::lock_guard const lock{_mutex};
        *chain = _current->chain.data();
        *chainLength = _current->chainLength;
        *key = _current->key;
    }
}
