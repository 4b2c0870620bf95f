// Signing and verifying tickets: the round trip keeps every member, and each kind of bad ticket is refused by name.
#include <TicketSignature.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

using namespace mxl::signing;
using Clock = std::chrono::system_clock;
using namespace std::chrono_literals;

namespace
{
    constexpr char const* ticket =
        R"({"addressFormat":2,"epoch":"17320327264041630736","fabricAddress":"AgCUv38AAAEAAAAAAAAAAA==","id":"8824839989244341056",)"
        R"("provider":"tcp","regions":[{"addr":"0","len":"169472","rkey":"15594490775502177892"}]})";

    SigningKey key(std::string id, char fill)
    {
        return SigningKey{std::move(id), std::string(32, fill)};
    }

    SigningKeys keys()
    {
        return SigningKeys{key("2026-11", 'a'), std::nullopt, {}};
    }

    std::string refusal(std::variant<VerifiedTicket, RefusedTicket> const& result)
    {
        auto const* refused = std::get_if<RefusedTicket>(&result);
        return refused ? refused->reason : std::string{"(accepted)"};
    }

    Clock::time_point const now = Clock::from_time_t(1'795'600'000);
}

TEST_CASE("a signed ticket verifies and gives back the library's ticket unchanged")
{
    auto const signedTicket = signTicket(ticket, keys().current, now + 1h);
    auto const document = nlohmann::json::parse(signedTicket);
    CHECK(document["signature"]["keyId"] == "2026-11");
    CHECK(document["signature"]["expires"] == formatUtc(now + 1h));
    CHECK(document["signature"]["mac"].get<std::string>().size() == 44);
    auto const result = verifyTicket(signedTicket, keys(), now);
    REQUIRE(std::holds_alternative<VerifiedTicket>(result));
    CHECK(nlohmann::json::parse(std::get<VerifiedTicket>(result).json) == nlohmann::json::parse(ticket));
    CHECK(std::get<VerifiedTicket>(result).expires == now + 1h);
}

TEST_CASE("forged, altered, expired, wrong-key, unsigned and malformed tickets are each refused with their reason")
{
    auto const signedTicket = signTicket(ticket, keys().current, now + 1h);

    auto forged = nlohmann::json::parse(signedTicket);
    forged["signature"]["mac"] = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
    CHECK(refusal(verifyTicket(forged.dump(), keys(), now)) ==
          "the ticket's signature does not match key '2026-11': it was forged, or altered after signing");

    for (auto const& [member, value] : std::initializer_list<std::pair<char const*, nlohmann::json>>{
             {"fabricAddress", "AgCUv38AAAIAAAAAAAAAAA=="}, {"epoch", "1"}, {"provider", "shm"}})
    {
        auto altered = nlohmann::json::parse(signedTicket);
        altered[member] = value;
        INFO(member);
        CHECK(refusal(verifyTicket(altered.dump(), keys(), now)).find("does not match") != std::string::npos);
    }
    auto laterExpiry = nlohmann::json::parse(signedTicket);
    laterExpiry["signature"]["expires"] = formatUtc(now + 24h);
    CHECK(refusal(verifyTicket(laterExpiry.dump(), keys(), now)).find("does not match") != std::string::npos);

    CHECK(refusal(verifyTicket(signedTicket, keys(), now + 2h)) ==
          "the ticket expired at " + formatUtc(now + 1h) + ", by this host's clock");

    SigningKeys const other{key("2026-12", 'b'), std::nullopt, {}};
    CHECK(refusal(verifyTicket(signedTicket, other, now)) ==
          "the ticket is signed with key '2026-11', which is not this side's key '2026-12'");

    CHECK(refusal(verifyTicket(ticket, keys(), now)) ==
          "the ticket is not signed, and this side holds a ticket key: only signed tickets are accepted");

    auto malformed = nlohmann::json::parse(signedTicket);
    malformed["signature"]["expires"] = "tomorrow";
    CHECK(refusal(verifyTicket(malformed.dump(), keys(), now)).find("is malformed") != std::string::npos);
}

TEST_CASE("after a rotation the previous key is accepted until its grace period ends, and not after")
{
    auto const oldKey = key("2026-10", 'o');
    auto const signedWithOld = signTicket(ticket, oldKey, now + 1h);
    SigningKeys const rotated{key("2026-11", 'n'), oldKey, now + 10min};
    CHECK(std::holds_alternative<VerifiedTicket>(verifyTicket(signedWithOld, rotated, now)));
    CHECK(refusal(verifyTicket(signedWithOld, rotated, now + 11min)) ==
          "the ticket is signed with the previous key '2026-10', accepted only until " + formatUtc(now + 10min));
    // The new key works throughout.
    CHECK(std::holds_alternative<VerifiedTicket>(verifyTicket(signTicket(ticket, rotated.current, now + 1h), rotated, now + 11min)));
}
