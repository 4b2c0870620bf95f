// allow_initiators and ticket_proof between real services: a target admits an initiator whose address is allowed (and
// that proves the ticket key, where asked), which moves grains intact, and refuses one that is not: nothing arrives, the
// refusal is logged once for the address however often the initiator retries, and /metrics and the STATUS= line count
// the refused requests.
#include "RawHttp.hpp"
#include "ServiceScenario.hpp"
#include "TestFlow.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <optional>
#include <regex>
#include <thread>

namespace mxl::test
{
    namespace
    {
        using namespace std::chrono_literals;

        // 32 bytes of 'k', base64.
        constexpr char const* secretK = "a2tra2tra2tra2tra2tra2tra2tra2tra2tra2tra2s=";

        std::string keyFile(ServiceDirectories const& directories)
        {
            return writeSecretFile(directories.tickets.path() / "ticket.key", fmt::format(R"({{"id": "2026-11", "key": "{}"}})", secretK));
        }

        // The value of mxl_initiators_refused_total in `metrics`, nullopt when it is absent.
        std::optional<std::uint64_t> refusedTotal(std::string const& metrics)
        {
            std::smatch match;
            static std::regex const line{R"(\nmxl_initiators_refused_total\{[^}]*\} (\d+))"};
            if (!std::regex_search(metrics, match, line))
            {
                return std::nullopt;
            }
            return std::stoull(match[1].str());
        }
    }

    TEST_CASE("admission: a target service refuses an initiator outside allow_initiators, logs it once and counts every request")
    {
        ServiceDirectories directories;
        PatternSource source{directories.source.path(), serviceTestFlow()};
        ReadyService target{with(targetSettings(directories), "allow_initiators", "127.0.0.2, 198.51.100.0/24")};
        auto const port = target.httpPort();
        REQUIRE(port != 0);
        CHECK(refusedTotal(rawExchange(port, rawRequest("GET", "/metrics")).body) == std::optional<std::uint64_t>{0});

        ServiceProcess initiator{with(initiatorSettings(directories, directories.ticketFile()), "node", "127.0.0.1")};
        auto const status = target.notify.waitFor("refused=", 30s);
        REQUIRE_MESSAGE(status.has_value(), "target output:\n", target.output(), "\ninitiator output:\n", initiator.output());
        // The initiator retries (backoff 100 ms to 1 s): wait for more requests, all refused.
        std::optional<std::uint64_t> refused;
        auto const deadline = std::chrono::steady_clock::now() + 30s;
        while ((refused = refusedTotal(rawExchange(port, rawRequest("GET", "/metrics")).body)).value_or(0) < 3 &&
               std::chrono::steady_clock::now() < deadline)
        {
            std::this_thread::sleep_for(100ms);
        }
        auto const log = target.output();
        INFO("target output:\n", log);
        CHECK(refused.value_or(0) >= 3);
        auto const line = std::string{"refused the connection of 127.0.0.1: not in allowInitiators (127.0.0.2/32, 198.51.100.0/24)"};
        auto const first = log.find(line);
        CHECK(first != std::string::npos);
        CHECK(log.find(line, first + 1) == std::string::npos);
        CHECK(log.find("grains are arriving") == std::string::npos);
        CHECK(initiator.output().find("connected to the target") == std::string::npos);
    }

    TEST_CASE("admission: a target service takes an initiator inside allow_initiators, and grains arrive intact")
    {
        ServiceDirectories directories;
        PatternSource source{directories.source.path(), serviceTestFlow()};
        ReadyService target{with(targetSettings(directories), "allow_initiators", "127.0.0.0/8")};
        ReadyService initiator{with(initiatorSettings(directories, directories.ticketFile()), "node", "127.0.0.1")};
        FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
        requireFlowing(verifier, 20, 20s, [] { return std::string{"through the admitted initiator"}; });
        auto const port = target.httpPort();
        CHECK(refusedTotal(rawExchange(port, rawRequest("GET", "/metrics")).body) == std::optional<std::uint64_t>{0});
    }

    TEST_CASE("admission: with ticket_proof a target service takes the initiator that proves the key and refuses one that does not")
    {
        ServiceDirectories directories;
        auto const key = keyFile(directories);
        PatternSource source{directories.source.path(), serviceTestFlow()};
        ReadyService target{with(with(targetSettings(directories), "ticket_key", key), "ticket_proof", "true")};
        {
            // Holds the key (so it takes the signed ticket) but sends no proof.
            ServiceProcess unproven{with(initiatorSettings(directories, directories.ticketFile()), "ticket_key", key)};
            REQUIRE_MESSAGE(target.notify.waitFor("refused=", 30s).has_value(), "target output:\n", target.output(),
                            "\ninitiator output:\n", unproven.output());
            CHECK(target.output().find("its connection request carries no proof of the ticket key") != std::string::npos);
            CHECK(unproven.output().find("connected to the target") == std::string::npos);
        }
        ReadyService initiator{
            with(with(initiatorSettings(directories, directories.ticketFile()), "ticket_key", key), "ticket_proof", "true")};
        FlowChecker verifier{directories.destination.path(), serviceTestFlowId};
        requireFlowing(verifier, 20, 20s, [&] { return "target output:\n" + target.output(); });
    }
}
