// Where an HTTPS endpoint's certificate chain and private key are: PEM files, the chain leaf first, the key mode 0600.
#pragma once

#include <string>

namespace mxl
{
    struct TlsFiles
    {
        std::string certificate;
        std::string key;
    };
}
