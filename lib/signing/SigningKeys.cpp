#include "SigningKeys.hpp"

#include "common/Base64.hpp"
#include "common/BoundedJson.hpp"
#include "common/SecretFile.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <ctime>

namespace mxl::signing
{
    namespace
    {
        constexpr std::size_t minimumSecretBytes = 32;

        SigningKey keyOf(nlohmann::json const& object, std::string const& where, std::filesystem::path const& file)
        {
            auto const text = [&](char const* name)
            {
                auto const it = object.find(name);
                if (it == object.end() || !it->is_string() || it->get_ref<std::string const&>().empty())
                {
                    throw KeyFileError{fmt::format("key file '{}': {}\"{}\" is missing or not a string", file.string(), where, name)};
                }
                return it->get<std::string>();
            };
            SigningKey key{text("id"), {}};
            auto secret = decodeBase64(text("key"));
            if (!secret)
            {
                throw KeyFileError{fmt::format("key file '{}': {}\"key\" is not base64", file.string(), where)};
            }
            if (secret->size() < minimumSecretBytes)
            {
                throw KeyFileError{
                    fmt::format("key file '{}': {}\"key\" holds {} bytes; at least {} are needed (head -c 32 /dev/urandom | base64)",
                                file.string(), where, secret->size(), minimumSecretBytes)};
            }
            key.secret = std::move(*secret);
            return key;
        }
    }

    std::string formatUtc(std::chrono::system_clock::time_point time)
    {
        return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", std::chrono::floor<std::chrono::seconds>(time));
    }

    std::optional<std::chrono::system_clock::time_point> parseUtc(std::string const& text)
    {
        std::tm parts{};
        char zone = 0;
        int consumed = 0;
        if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c%n", &parts.tm_year, &parts.tm_mon, &parts.tm_mday, &parts.tm_hour,
                        &parts.tm_min, &parts.tm_sec, &zone, &consumed) != 7 ||
            zone != 'Z' || static_cast<std::size_t>(consumed) != text.size() || text.size() != 20)
        {
            return std::nullopt;
        }
        parts.tm_year -= 1900;
        parts.tm_mon -= 1;
        auto const seconds = ::timegm(&parts);
        if (seconds == -1)
        {
            return std::nullopt;
        }
        return std::chrono::system_clock::from_time_t(seconds);
    }

    SigningKeys loadSigningKeys(std::filesystem::path const& file)
    {
        std::string text;
        try
        {
            text = mxl::readSecretFile(file);
        }
        catch (mxl::FileReadError const& error)
        {
            throw KeyFileError{fmt::format("key file {}", error.what())};
        }
        auto const document = mxl::parseJsonOrDiscarded(text);
        if (!document.is_object())
        {
            throw KeyFileError{fmt::format("key file '{}' is not a JSON object with \"id\" and \"key\"", file.string())};
        }
        SigningKeys keys{keyOf(document, "", file), std::nullopt, {}};
        if (auto const previous = document.find("previous"); previous != document.end())
        {
            if (!previous->is_object())
            {
                throw KeyFileError{fmt::format("key file '{}': \"previous\" is not an object", file.string())};
            }
            keys.previous = keyOf(*previous, "\"previous\".", file);
            auto const until = previous->find("accepted_until");
            auto const parsed = until != previous->end() && until->is_string() ? parseUtc(until->get<std::string>()) : std::nullopt;
            if (!parsed)
            {
                throw KeyFileError{fmt::format(
                    "key file '{}': \"previous\".\"accepted_until\" must be a UTC time like 2026-12-01T00:00:00Z", file.string())};
            }
            keys.previousAcceptedUntil = *parsed;
        }
        return keys;
    }
}
