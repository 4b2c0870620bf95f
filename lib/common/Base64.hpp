// Standard base64 (RFC 4648 alphabet, '=' padding, no line breaks): how tickets carry raw fabric addresses, and how a
// target prints its whole ticket on one line. Bytes travel as std::string.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace mxl
{
    [[nodiscard]] std::string encodeBase64(std::string_view bytes);
    // nullopt unless the text is a multiple of 4 characters of the alphabet with at most two trailing '='.
    [[nodiscard]] std::optional<std::string> decodeBase64(std::string_view text);
}
