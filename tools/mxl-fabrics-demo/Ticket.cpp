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
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace mxl::demo
{
    namespace
    {
        void checkDecimalField(nlohmann::json const& object, char const* key, std::string const& where)
        {
            auto const field = object.find(key);
            if (field == object.end() || !field->is_string())
            {
                tools::badInput("target info {}: '{}' must be a decimal string", where, key);
            }
            auto const& text = field->get_ref<std::string const&>();
            std::uint64_t value = 0;
            auto const [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
            if (error != std::errc{} || end != text.data() + text.size() || text.empty())
            {
                tools::badInput("target info {}: '{}' is \"{}\", expected a decimal number", where, key, text);
            }
        }

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
            if (!document.contains("addressFormat") || !document["addressFormat"].is_number_integer())
            {
                tools::badInput("target info from {}: 'addressFormat' must be a number", source);
            }
            for (char const* key : {"fabricAddress", "id", "provider"})
            {
                if (!document.contains(key) || !document[key].is_string() || document[key].get_ref<std::string const&>().empty())
                {
                    tools::badInput("target info from {}: '{}' must be a non-empty string", source, key);
                }
            }
            auto const& regions = document.find("regions");
            if (regions == document.end() || !regions->is_array() || regions->empty())
            {
                tools::badInput("target info from {}: 'regions' must be a non-empty array", source);
            }
            for (std::size_t i = 0; i < regions->size(); ++i)
            {
                auto const where = fmt::format("from {}, region {}", source, i);
                if (!(*regions)[i].is_object())
                {
                    tools::badInput("target info {}: not an object", where);
                }
                for (char const* key : {"addr", "len"})
                {
                    checkDecimalField((*regions)[i], key, where);
                }
                // A libfabric key is the SDK's decimal rkey; another backend's key (UCX) is base64 text, which the
                // library checks when it adds the target.
                auto const& region = (*regions)[i];
                if (region.contains("rkeyBlob"))
                {
                    if (!region["rkeyBlob"].is_string() || region["rkeyBlob"].get_ref<std::string const&>().empty())
                    {
                        tools::badInput("target info {}: 'rkeyBlob' must be a non-empty string", where);
                    }
                }
                else
                {
                    checkDecimalField(region, "rkey", where);
                }
            }

            Ticket ticket;
            ticket.provider = document["provider"].get<std::string>();
            ticket.hasBounceBuffer = document.contains("bounceBufferInfo");
            ticket.transport = ticketTransport(json);
            ticket.json = std::move(json);
            return ticket;
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
