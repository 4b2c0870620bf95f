// Signed tickets between real services: a pair sharing a key moves grains; an initiator refuses a ticket signed with
// another key, an unsigned one, an expired one and an altered one, each with its reason, and moves nothing.
#include "ServiceScenario.hpp"
#include "TestFlow.hpp"

#include <TicketSignature.hpp>

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include <sys/stat.h>

namespace mxl::test
{
    namespace
    {
        using namespace std::chrono_literals;

        // 32 bytes of 'k' and of 'x', base64.
        constexpr char const* secretK = "a2tra2tra2tra2tra2tra2tra2tra2tra2tra2tra2s=";
        constexpr char const* secretX = "eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHg=";

        std::string writeKeyFile(ServiceDirectories const& directories, std::string const& name, std::string const& id, char const* secret,
                                 mode_t mode = 0600)
        {
            auto const path = directories.tickets.path() / name;
            std::ofstream{path} << fmt::format(R"({{"id": "{}", "key": "{}"}})", id, secret);
            ::chmod(path.c_str(), mode);
            return path.string();
        }

        // Starts an initiator on `ticket` with `keyFile` and waits for its refusal line.
        std::string refusalOf(ServiceDirectories const& directories, std::string const& ticket, std::string const& keyFile)
        {
            ServiceProcess initiator{with(initiatorSettings(directories, ticket), "ticket_key", keyFile)};
            auto const line = initiator.waitForLine("refused: ", 10s);
            REQUIRE_MESSAGE(line.has_value(), initiator.output());
            return *line;
        }
    }

    TEST_CASE("signed tickets: a pair sharing a key moves grains, and the ticket carries the signature")
    {
        ServiceDirectories directories;
        auto const key = writeKeyFile(directories, "ticket.key", "2026-11", secretK);
        PatternSource source{directories.source.path(), serviceTestFlow()};
        ReadyService target{with(targetSettings(directories), "ticket_key", key)};
        CHECK(target.waitForLine("signed with key '2026-11' for 3600 s", 5s).has_value());
        auto const ticket = nlohmann::json::parse(readFile(directories.ticketFile()));
        CHECK(ticket["signature"]["keyId"] == "2026-11");

        ReadyService initiator{with(initiatorSettings(directories, directories.ticketFile()), "ticket_key", key)};
        FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
        requireFlowing(verifier, 20, "through the signed ticket");
    }

    TEST_CASE("signed tickets: another key, no signature, an expired or an altered ticket are refused by name, and nothing moves")
    {
        ServiceDirectories directories;
        auto const key = writeKeyFile(directories, "ticket.key", "2026-11", secretK);
        auto const otherKey = writeKeyFile(directories, "other.key", "studio-b", secretX);
        PatternSource source{directories.source.path(), serviceTestFlow()};
        ReadyService target{with(targetSettings(directories), "ticket_key", key)};
        auto const signedText = readFile(directories.ticketFile());

        CHECK(refusalOf(directories, directories.ticketFile(), otherKey)
                  .find("the ticket is signed with key '2026-11', which is not this side's key 'studio-b'") != std::string::npos);

        auto unsignedTicket = nlohmann::json::parse(signedText);
        unsignedTicket.erase("signature");
        auto const unsignedFile = (directories.tickets.path() / "unsigned.json").string();
        std::ofstream{unsignedFile} << unsignedTicket.dump();
        CHECK(refusalOf(directories, unsignedFile, key).find("the ticket is not signed") != std::string::npos);

        auto const keys = signing::SigningKeys{signing::SigningKey{"2026-11", std::string(32, 'k')}, std::nullopt, {}};
        auto const expiredFile = (directories.tickets.path() / "expired.json").string();
        std::ofstream{expiredFile} << signing::signTicket(unsignedTicket.dump(), keys.current, std::chrono::system_clock::now() - 1min);
        CHECK(refusalOf(directories, expiredFile, key).find("the ticket expired at ") != std::string::npos);

        auto altered = nlohmann::json::parse(signedText);
        altered["regions"][0]["rkey"] = "1";
        auto const alteredFile = (directories.tickets.path() / "altered.json").string();
        std::ofstream{alteredFile} << altered.dump();
        CHECK(refusalOf(directories, alteredFile, key).find("it was forged, or altered after signing") != std::string::npos);

        // None of them got a grain into the target's flow.
        CHECK(target.output().find("grains are arriving") == std::string::npos);
    }
}
