#include "AdmissionProof.hpp"

#include <fmt/format.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <array>
#include <string_view>

namespace mxl::signing
{
    namespace
    {
        constexpr std::array<std::uint8_t, 4> magic{'M', 'X', 'L', 'A'};
        constexpr std::uint8_t version = 1;
        constexpr std::string_view label = "mxl-admission/1";
        constexpr std::size_t macBytes = 32;
        // The key id travels with a one-byte length.
        constexpr std::size_t maxKeyIdBytes = 255;

        std::array<std::uint8_t, macBytes> macOf(std::string const& secret, std::uint64_t targetId, std::uint64_t epoch)
        {
            std::vector<std::uint8_t> text(label.begin(), label.end());
            for (auto const number : {targetId, epoch})
            {
                for (int byte = 0; byte < 8; ++byte)
                {
                    text.push_back(static_cast<std::uint8_t>(number >> (8 * byte)));
                }
            }
            std::array<std::uint8_t, macBytes> mac{};
            unsigned int length = 0;
            HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()), text.data(), text.size(), mac.data(), &length);
            return mac;
        }
    }

    std::vector<std::uint8_t> admissionProof(SigningKey const& key, std::uint64_t targetId, std::uint64_t epoch)
    {
        auto const idBytes = std::min(key.id.size(), maxKeyIdBytes);
        std::vector<std::uint8_t> proof(magic.begin(), magic.end());
        proof.push_back(version);
        proof.push_back(static_cast<std::uint8_t>(idBytes));
        proof.insert(proof.end(), key.id.begin(), key.id.begin() + static_cast<std::ptrdiff_t>(idBytes));
        auto const mac = macOf(key.secret, targetId, epoch);
        proof.insert(proof.end(), mac.begin(), mac.end());
        return proof;
    }

    std::string admissionProblem(SigningKeys const& keys, std::span<std::uint8_t const> data, std::uint64_t targetId, std::uint64_t epoch,
                                 std::chrono::system_clock::time_point now)
    {
        if (data.size() < magic.size() + 2 || !std::equal(magic.begin(), magic.end(), data.begin()))
        {
            return "its connection request carries no proof of the ticket key";
        }
        if (data[magic.size()] != version)
        {
            return fmt::format("its proof of the ticket key is of version {}, not {}", data[magic.size()], version);
        }
        auto const idBytes = data[magic.size() + 1];
        auto const idStart = magic.size() + 2;
        if (data.size() < idStart + idBytes + macBytes)
        {
            return "its proof of the ticket key is cut short";
        }
        std::string const keyId{reinterpret_cast<char const*>(data.data() + idStart), idBytes};
        SigningKey const* key = nullptr;
        if (keyId == keys.current.id)
        {
            key = &keys.current;
        }
        else if (keys.previous && keyId == keys.previous->id)
        {
            if (now > keys.previousAcceptedUntil)
            {
                return fmt::format("its proof is made with key '{}', accepted only until {}", keyId, formatUtc(keys.previousAcceptedUntil));
            }
            key = &*keys.previous;
        }
        else
        {
            return fmt::format("its proof is made with key '{}', which is not this target's key '{}'", keyId, keys.current.id);
        }
        auto const expected = macOf(key->secret, targetId, epoch);
        if (CRYPTO_memcmp(expected.data(), data.data() + idStart + idBytes, macBytes) != 0)
        {
            return fmt::format("its proof with key '{}' does not verify: another secret under that id, or a proof for another target or "
                               "epoch",
                               keyId);
        }
        return {};
    }
}
