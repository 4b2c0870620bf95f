#include "Ticket.hpp"

#include <common/BoundedJson.hpp>

#include <DirectoryError.hpp>
#include <TicketKey.hpp>
#include <TicketSignature.hpp>
#include <directory/TicketFile.hpp>
#include <directory/TicketSource.hpp>

#include "ToolError.hpp"
#include "common/Base64.hpp"
#include <client/TextFile.hpp>

#include <nlohmann/json.hpp>

namespace mxl::demo
{
    namespace
    {
        // What the directory holds at the key now; a missing key is a usage error (a typo, or a target not running).
        std::string readEtcdTicket(std::string const& url)
        {
            std::string why;
            auto text = directory::readTicketText(url, std::chrono::seconds{5}, why);
            if (text)
            {
                return std::move(*text);
            }
            try
            {
                auto const location = directory::parseEtcdUrl(url);
                tools::badInput("etcd key '{}' holds no ticket: {} (mxl-info --tickets etcd://{}{} lists the tickets)", url, why,
                                location.endpoint, directory::ticketKeyPrefix);
            }
            catch (directory::DirectoryError const&)
            {
                tools::badInput("{}", why);
            }
        }

        // The ticket's JSON as the argument gives it, and where it came from for messages.
        std::pair<std::string, std::string> ticketText(std::string const& argument)
        {
            if (directory::isEtcdUrl(argument))
            {
                return {readEtcdTicket(argument), fmt::format("etcd key '{}'", argument)};
            }
            if (argument.starts_with('@'))
            {
                auto const path = argument.substr(1);
                return {client::readTextFile(path, "target info file"), fmt::format("file '{}'", path)};
            }
            // A ticket copied from a terminal may bring spaces or a newline along.
            auto const first = argument.find_first_not_of(" \t\r\n");
            auto const text = first == std::string::npos
                                  ? std::string_view{}
                                  : std::string_view{argument}.substr(first, argument.find_last_not_of(" \t\r\n") - first + 1);
            auto json = text.empty() ? std::nullopt : mxl::decodeBase64(text);
            if (!json)
            {
                tools::badInput("target info is not valid base64 (pass the string printed after 'Target info:', or @FILE for its JSON)");
            }
            return {std::move(*json), "the command line"};
        }

        Ticket checkTicket(std::string json, std::string const& source)
        {
            auto const document = mxl::parseJsonOrDiscarded(json);
            if (document.is_discarded() || !document.is_object())
            {
                tools::badInput("target info from {} is not a JSON object", source);
            }
            if (auto const problem = directory::ticketFieldProblem(document); !problem.empty())
            {
                tools::badInput("target info from {}: {}", source, problem);
            }
            std::string why;
            auto ticket = directory::parseTicket(std::move(json), why);
            if (!ticket)
            {
                tools::badInput("target info from {}: {}", source, why);
            }
            return std::move(*ticket);
        }
    }

    Ticket loadTicket(std::string const& argument, std::optional<signing::SigningKeys> const& keys)
    {
        auto [json, source] = ticketText(argument);
        if (keys)
        {
            auto result = signing::verifyTicket(json, *keys, std::chrono::system_clock::now());
            if (auto const* refused = std::get_if<signing::RefusedTicket>(&result))
            {
                tools::badInput("the ticket from {} is refused: {}", source, refused->reason);
            }
            json = std::get<signing::VerifiedTicket>(std::move(result)).json;
        }
        return checkTicket(std::move(json), source);
    }

    void writeTicketFile(std::string const& argument, std::string const& json)
    {
        try
        {
            directory::writeTicketFile(argument.starts_with('@') ? argument.substr(1) : argument, json);
        }
        catch (directory::DirectoryError const& error)
        {
            tools::runtimeFailure("{}", error.what());
        }
    }
}
