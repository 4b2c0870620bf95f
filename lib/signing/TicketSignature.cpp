#include "TicketSignature.hpp"

#include "common/Base64.hpp"
#include "common/BoundedJson.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <array>
#include <stdexcept>

namespace mxl::signing
{
    namespace
    {
        using json = nlohmann::json;

        std::string mac(std::string const& secret, std::string const& text)
        {
            std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
            unsigned int length = 0;
            HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()), reinterpret_cast<unsigned char const*>(text.data()),
                 text.size(), digest.data(), &length);
            return std::string(reinterpret_cast<char const*>(digest.data()), length);
        }

        // The text the MAC covers: the ticket with "signature" reduced to key id and expiry.
        std::string signedText(json ticket, std::string const& keyId, std::string const& expires)
        {
            ticket["signature"] = json{{"keyId", keyId}, {"expires", expires}};
            return ticket.dump();
        }
    }

    std::string signTicket(std::string const& ticketJson, SigningKey const& key, std::chrono::system_clock::time_point expires)
    {
        auto ticket = mxl::parseJsonOrDiscarded(ticketJson);
        if (!ticket.is_object())
        {
            throw std::invalid_argument{"the ticket to sign is not a JSON object"};
        }
        ticket.erase("signature");
        auto const expiry = formatUtc(expires);
        auto const code = encodeBase64(mac(key.secret, signedText(ticket, key.id, expiry)));
        ticket["signature"] = json{{"keyId", key.id}, {"expires", expiry}, {"mac", code}};
        return ticket.dump();
    }

    std::variant<VerifiedTicket, RefusedTicket> verifyTicket(std::string const& ticketJson, SigningKeys const& keys,
                                                             std::chrono::system_clock::time_point now)
    {
        auto ticket = mxl::parseJsonOrDiscarded(ticketJson);
        if (!ticket.is_object())
        {
            return RefusedTicket{"the ticket is not a JSON object"};
        }
        auto const signature = ticket.find("signature");
        if (signature == ticket.end())
        {
            return RefusedTicket{"the ticket is not signed, and this side holds a ticket key: only signed tickets are accepted"};
        }
        auto const member = [&](char const* name)
        {
            return signature->is_object() && (*signature).contains(name) && (*signature)[name].is_string()
                       ? (*signature)[name].get<std::string>()
                       : std::string{};
        };
        auto const keyId = member("keyId");
        auto const expiresText = member("expires");
        auto const code = decodeBase64(member("mac"));
        auto const expires = parseUtc(expiresText);
        if (keyId.empty() || !expires || !code)
        {
            return RefusedTicket{"the ticket's \"signature\" is malformed (it needs keyId, expires as UTC and a base64 mac)"};
        }
        SigningKey const* key = nullptr;
        if (keyId == keys.current.id)
        {
            key = &keys.current;
        }
        else if (keys.previous && keyId == keys.previous->id)
        {
            if (now > keys.previousAcceptedUntil)
            {
                return RefusedTicket{fmt::format("the ticket is signed with the previous key '{}', accepted only until {}", keyId,
                                                 formatUtc(keys.previousAcceptedUntil))};
            }
            key = &*keys.previous;
        }
        else
        {
            return RefusedTicket{fmt::format("the ticket is signed with key '{}', which is not this side's key '{}'{}", keyId,
                                             keys.current.id,
                                             keys.previous ? fmt::format(" nor its previous key '{}'", keys.previous->id) : std::string{})};
        }
        ticket.erase("signature");
        auto const expected = mac(key->secret, signedText(ticket, keyId, expiresText));
        if (code->size() != expected.size() || CRYPTO_memcmp(code->data(), expected.data(), expected.size()) != 0)
        {
            return RefusedTicket{
                fmt::format("the ticket's signature does not match key '{}': it was forged, or altered after signing", keyId)};
        }
        if (now > *expires)
        {
            // Without the time now, so that a source that keeps giving the expired ticket is reported once.
            return RefusedTicket{fmt::format("the ticket expired at {}, by this host's clock", expiresText)};
        }
        return VerifiedTicket{ticket.dump(), *expires};
    }
}
