#include "Ticket.hpp"

#include <common/BoundedJson.hpp>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <charconv>
#include <stdexcept>

namespace mxl::directory
{
    namespace
    {
        // "" when `object[key]` is a string of decimal digits, else what is wrong with it.
        std::string decimalFieldProblem(nlohmann::json const& object, char const* key)
        {
            auto const field = object.find(key);
            if (field == object.end() || !field->is_string())
            {
                return fmt::format("'{}' must be a decimal string", key);
            }
            auto const& text = field->get_ref<std::string const&>();
            std::uint64_t value = 0;
            auto const [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
            if (error != std::errc{} || end != text.data() + text.size() || text.empty())
            {
                return fmt::format("'{}' is \"{}\", expected a decimal number", key, text);
            }
            return {};
        }

        std::string regionProblem(nlohmann::json const& region)
        {
            if (!region.is_object())
            {
                return "not an object";
            }
            for (char const* key : {"addr", "len"})
            {
                if (auto problem = decimalFieldProblem(region, key); !problem.empty())
                {
                    return problem;
                }
            }
            // A libfabric key is the SDK's decimal rkey; another backend's key (UCX) is base64 text, which the library
            // checks when it adds the target.
            if (!region.contains("rkeyBlob"))
            {
                return decimalFieldProblem(region, "rkey");
            }
            if (!region["rkeyBlob"].is_string() || region["rkeyBlob"].get_ref<std::string const&>().empty())
            {
                return "'rkeyBlob' must be a non-empty string";
            }
            return {};
        }
    }

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
        if (auto const id = json.find("id"); id != json.end() && id->is_string())
        {
            auto const& digits = id->get_ref<std::string const&>();
            auto const [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), ticket.id);
            if (error != std::errc{} || end != digits.data() + digits.size())
            {
                // Named by the library's own check of the ticket.
                ticket.id = 0;
            }
        }
        ticket.json = std::move(text);
        return ticket;
    }

    Ticket libraryTicket(std::string json)
    {
        std::string why;
        auto ticket = parseTicket(std::move(json), why);
        if (!ticket || ticket->epoch == 0)
        {
            throw std::runtime_error{fmt::format("the fabrics library's ticket {}", ticket ? "has no epoch" : why)};
        }
        return std::move(*ticket);
    }

    std::string ticketFieldProblem(nlohmann::json const& ticket)
    {
        if (!ticket.contains("addressFormat") || !ticket["addressFormat"].is_number_integer())
        {
            return "'addressFormat' must be a number";
        }
        for (char const* key : {"fabricAddress", "id", "provider"})
        {
            if (!ticket.contains(key) || !ticket[key].is_string() || ticket[key].get_ref<std::string const&>().empty())
            {
                return fmt::format("'{}' must be a non-empty string", key);
            }
        }
        auto const& regions = ticket.find("regions");
        if (regions == ticket.end() || !regions->is_array() || regions->empty())
        {
            return "'regions' must be a non-empty array";
        }
        for (std::size_t i = 0; i < regions->size(); ++i)
        {
            if (auto const problem = regionProblem((*regions)[i]); !problem.empty())
            {
                return fmt::format("region {}: {}", i, problem);
            }
        }
        return {};
    }
}
