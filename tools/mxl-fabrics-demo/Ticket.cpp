#include "Ticket.hpp"

#include <common/BoundedJson.hpp>

#include <DirectoryError.hpp>
#include <EtcdClient.hpp>
#include <TicketKey.hpp>
#include <TicketSignature.hpp>

#include "TextFile.hpp"
#include "ToolError.hpp"
#include "common/Base64.hpp"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace mxl::demo
{
    namespace
    {
        // What the directory holds at the key now; a missing key is a usage error (a typo, or a target not running).
        std::string readEtcdTicket(std::string const& url)
        {
            try
            {
                auto const location = directory::parseEtcdUrl(url);
                directory::EtcdClient client{location.endpoint, std::chrono::seconds{5}};
                if (auto const found = client.get(location.key))
                {
                    return found->value;
                }
                tools::badInput("etcd key '{}' holds no ticket: is the target running and publishing there? (mxl-info --tickets "
                                "etcd://{}{} lists the tickets)",
                                url, location.endpoint, directory::ticketKeyPrefix);
            }
            catch (directory::DirectoryError const& error)
            {
                tools::badInput("{}", error.what());
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
                return {tools::readTextFile(path, "target info file"), fmt::format("file '{}'", path)};
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

    std::string ticketTransport(std::string const& json)
    {
        auto const document = mxl::parseJsonOrDiscarded(json);
        auto const transport = document.is_object() ? document.find("transport") : document.end();
        return transport != document.end() && transport->is_string() ? transport->get<std::string>() : std::string{"rma"};
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
        auto const path = argument.starts_with('@') ? argument.substr(1) : argument;
        auto const temporary = fmt::format("{}.tmp.{}", path, ::getpid());
        // A fresh file gets mode 0600 (a umask only removes bits), so the rkeys are never readable by others.
        ::unlink(temporary.c_str());
        int const fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0)
        {
            tools::runtimeFailure("cannot create target info file '{}': {}", temporary, std::strerror(errno));
        }
        std::size_t written = 0;
        while (written < json.size())
        {
            auto const n = ::write(fd, json.data() + written, json.size() - written);
            if (n < 0 && errno == EINTR)
            {
                continue;
            }
            if (n <= 0)
            {
                auto const error = errno;
                ::close(fd);
                ::unlink(temporary.c_str());
                tools::runtimeFailure("cannot write target info file '{}': {}", temporary, std::strerror(error));
            }
            written += static_cast<std::size_t>(n);
        }
        // rename publishes the complete file at once: a reader polling for it never sees half a ticket.
        if (::close(fd) != 0 || ::rename(temporary.c_str(), path.c_str()) != 0)
        {
            auto const error = errno;
            ::unlink(temporary.c_str());
            tools::runtimeFailure("cannot publish target info file '{}': {}", path, std::strerror(error));
        }
    }
}
