#include "Ticket.hpp"

#include <common/BoundedJson.hpp>

#include <nlohmann/json.hpp>

#include <charconv>

namespace mxl::service
{
    std::optional<Ticket> parseTicket(std::string text, std::string& why)
    {
        // A file written by hand may end with a newline; the JSON itself has none.
        while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' '))
        {
            text.pop_back();
        }
        auto const parsed = mxl::parseBoundedJson(text);
        if (!parsed.ok())
        {
            why = "not JSON: " + parsed.problem;
            return std::nullopt;
        }
        auto const& json = parsed.value;
        if (!json.is_object())
        {
            why = "not a JSON object";
            return std::nullopt;
        }
        Ticket ticket;
        auto const provider = json.find("provider");
        if (provider == json.end() || !provider->is_string())
        {
            why = "no \"provider\" string";
            return std::nullopt;
        }
        ticket.provider = provider->get<std::string>();
        ticket.carriesSamples = json.contains("bounceBufferInfo");
        if (auto const transport = json.find("transport"); transport != json.end() && transport->is_string())
        {
            ticket.transport = transport->get<std::string>();
        }
        if (auto const epoch = json.find("epoch"); epoch != json.end())
        {
            auto const digits = epoch->is_string() ? epoch->get<std::string>() : std::string{};
            auto const [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), ticket.epoch);
            if (digits.empty() || error != std::errc{} || end != digits.data() + digits.size())
            {
                why = "\"epoch\" is not a decimal string";
                return std::nullopt;
            }
        }
        ticket.json = std::move(text);
        return ticket;
    }
}
