#include "NameUuid.hpp"

#include <fmt/format.h>
#include <openssl/sha.h>

#include <array>
#include <cstdint>
#include <vector>

namespace mxl::nmos
{
    namespace
    {
        // mxl's namespace for name-based ids: a random version-4 UUID chosen once, never to change.
        constexpr std::array<std::uint8_t, 16> mxlNamespace{0x3b, 0x8e, 0x5f, 0x21, 0x94, 0xc7, 0x4d, 0x0a,
                                                            0xa6, 0x1f, 0x72, 0xd3, 0x5c, 0x09, 0xe8, 0x4b};
    }

    std::string nameUuid(std::string_view name)
    {
        std::vector<std::uint8_t> input(mxlNamespace.begin(), mxlNamespace.end());
        input.insert(input.end(), name.begin(), name.end());
        std::array<std::uint8_t, SHA_DIGEST_LENGTH> digest{};
        SHA1(input.data(), input.size(), digest.data());
        digest[6] = static_cast<std::uint8_t>((digest[6] & 0x0f) | 0x50);
        digest[8] = static_cast<std::uint8_t>((digest[8] & 0x3f) | 0x80);
        std::string text;
        for (std::size_t i = 0; i < 16; ++i)
        {
            text += fmt::format("{}{:02x}", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", digest[i]);
        }
        return text;
    }
}
