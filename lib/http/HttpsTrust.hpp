// Whom the tools' HTTP client trusts over https://: the certificate authorities of a PEM bundle the configuration
// names, or the system's (/etc/ssl/certs). A server must present a chain to one of them that names the URL's host
// name or address; anything else ends the exchange with the reason, before a byte of the request is sent. And the
// client certificate it presents where a server asks for one.
#pragma once

#include "TlsFiles.hpp"

#include <openssl/types.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace mxl
{
    // Why a CA bundle cannot be used: what() names the file and the reason.
    class HttpsTrustError : public std::runtime_error
    {
    public:
        using std::runtime_error::runtime_error;
    };

    // From now on, for every https:// exchange of this process: the authorities in `caFile`, or the system's where it
    // is empty. Throws HttpsTrustError and changes nothing when the file holds no usable certificate.
    void setHttpsTrust(std::string const& caFile);

    // From now on, the certificate this process presents to servers that ask for one (etcd with client certificate
    // authentication), or none. The key file must be mode 0600. Throws HttpsTrustError and changes nothing when the pair
    // cannot be used.
    void setHttpsClientCertificate(std::optional<TlsFiles> const& files);

    // The reason of OpenSSL's oldest error on this thread, its queue cleared; `whenNone` where it holds none.
    [[nodiscard]] std::string openSslError(std::string_view whenNone);

    // The TLS client context of the trust in use (TLS 1.2 or later, peer verification on), shared by the exchanges.
    [[nodiscard]] std::shared_ptr<SSL_CTX> httpsContext();
}
