// Standard base64 (RFC 4648 alphabet, '=' padding, no line breaks): how tickets carry raw fabric addresses, and how a
// target prints its whole ticket on one line; and base64url without padding (RFC 4648 section 5), the encoding of JSON
// Web Tokens and Keys. Bytes travel as std::string.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace mxl
{
    [[nodiscard]] std::string encodeBase64(std::string_view bytes);
    // nullopt unless the text is a multiple of 4 characters of the alphabet with at most two trailing '='.
    [[nodiscard]] std::optional<std::string> decodeBase64(std::string_view text);

    [[nodiscard]] std::string encodeBase64Url(std::string_view bytes);
    // nullopt unless the text is of the URL alphabet ('-' and '_' for '+' and '/'), without padding.
    [[nodiscard]] std::optional<std::string> decodeBase64Url(std::string_view text);
}
