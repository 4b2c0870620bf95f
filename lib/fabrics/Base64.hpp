// Standard base64 (RFC 4648 alphabet, '=' padding, no line breaks): how tickets carry raw fabric addresses.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mxl::fabrics
{
    [[nodiscard]] std::string encodeBase64(std::vector<std::uint8_t> const& bytes);
    // nullopt unless the text is a multiple of 4 characters of the alphabet with at most two trailing '='.
    [[nodiscard]] std::optional<std::vector<std::uint8_t>> decodeBase64(std::string_view text);
}
