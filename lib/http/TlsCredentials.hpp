// An HTTPS server's certificate chain and private key (GnuTLS), loaded from TlsFiles and loaded again on request while
// connections go on: a handshake takes the pair current when it starts, so a certificate renewed on disk takes effect
// without a restart and without dropping a connection. A reload that fails keeps the pair in use.
#pragma once

#include "TlsFiles.hpp"

#include <chrono>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

struct gnutls_pcert_st;
struct gnutls_privkey_st;

namespace mxl
{
    // Why a certificate or key cannot be used: what() names the file and the reason; it never holds key material.
    class TlsFilesError : public std::runtime_error
    {
    public:
        using std::runtime_error::runtime_error;
    };

    class TlsCredentials
    {
    public:
        // Throws TlsFilesError.
        explicit TlsCredentials(TlsFiles files);
        ~TlsCredentials();

        TlsCredentials(TlsCredentials const&) = delete;
        TlsCredentials& operator=(TlsCredentials const&) = delete;

        // Reads the files again and uses them for the handshakes from now on. Throws TlsFilesError and keeps the pair in
        // use when they cannot be used.
        void reload();

        // "subject '<DN>', issuer '<DN>', valid until <UTC>" of the leaf in use, for the log.
        [[nodiscard]] std::string describe() const;

        // For GnuTLS's certificate callback: the chain and key of the pair in use, which stay valid until well after
        // any handshake that took them has ended.
        void select(gnutls_pcert_st** chain, unsigned* chainLength, gnutls_privkey_st** key);

    private:
        struct Pair;

        TlsFiles _files;
        mutable std::mutex _mutex;
        std::shared_ptr<Pair> _current;
        // Pairs replaced by a reload, kept for handshakes that may still use them and released a while later.
        std::vector<std::pair<std::chrono::steady_clock::time_point, std::shared_ptr<Pair>>> _retired;
    };
}
