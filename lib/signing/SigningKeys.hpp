// The keys tickets are signed with, from a key file that only its owner may read:
//
//   {"id": "2026-11", "key": "<base64 of at least 32 random bytes>",
//    "previous": {"id": "2026-10", "key": "<base64>", "accepted_until": "2026-12-01T00:00:00Z"}}
//
// Targets sign with "key"; initiators accept "key" and, until "accepted_until" (UTC), "previous": to rotate, move the
// old key to "previous" with a grace period and give every host the new file. A key is made with
// `head -c 32 /dev/urandom | base64`.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

namespace mxl::signing
{
    // A key file that cannot be used; the message names the file, the member and what is wrong.
    class KeyFileError : public std::runtime_error
    {
    public:
        using std::runtime_error::runtime_error;
    };

    struct SigningKey
    {
        std::string id;
        // The raw secret bytes.
        std::string secret;
    };

    struct SigningKeys
    {
        SigningKey current;
        std::optional<SigningKey> previous;
        std::chrono::system_clock::time_point previousAcceptedUntil{};
    };

    // Throws KeyFileError when the file cannot be read, is readable or writable by group or others (it must be mode 0600
    // or stricter), is not the JSON above, or holds a key shorter than 32 bytes.
    SigningKeys loadSigningKeys(std::filesystem::path const& file);

    // "2026-11-25T18:00:00Z"
    std::string formatUtc(std::chrono::system_clock::time_point time);
    // nullopt unless the text is exactly that form.
    std::optional<std::chrono::system_clock::time_point> parseUtc(std::string const& text);
}
