// Standard base64 (RFC 4648 alphabet, '=' padding, no line breaks): how the target prints its ticket on one line.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace mxl::demo
{
    std::string base64Encode(std::string_view bytes);

    // nullopt unless `text` is canonical base64: length a multiple of 4, only alphabet characters, padding only at
    // the end. Surrounding whitespace (a copied terminal line) is ignored.
    std::optional<std::string> base64Decode(std::string_view text);
}
