#include "TicketSource.hpp"

#include <common/BoundedFile.hpp>

#include <HttpClient.hpp>

#include <DirectoryError.hpp>
#include <EtcdClient.hpp>
#include <TicketKey.hpp>
#include <TicketSignature.hpp>

#include <fmt/format.h>

namespace mxl::service
{
    namespace
    {
        std::variant<std::string, HttpFailure> readFile(std::string const& path)
        {
            try
            {
                return readBoundedFile(path);
            }
            catch (FileReadError const& error)
            {
                return HttpFailure{error.reason()};
            }
        }

        std::variant<std::string, HttpFailure> readEtcdKey(std::string const& url, std::chrono::milliseconds timeout)
        {
            try
            {
                auto const location = directory::parseEtcdUrl(url);
                directory::EtcdClient client{location.endpoint, timeout};
                if (auto const found = client.get(location.key))
                {
                    return found->value;
                }
                return HttpFailure{"no such key (the target is not running, has not published yet, or its lease expired)"};
            }
            catch (directory::DirectoryError const& error)
            {
                return HttpFailure{error.what()};
            }
        }

        std::variant<std::string, HttpFailure> readSource(std::string const& source, std::chrono::milliseconds timeout)
        {
            if (isHttpUrl(source))
            {
                return httpGet(source, timeout);
            }
            if (directory::isEtcdUrl(source))
            {
                return readEtcdKey(source, timeout);
            }
            return readFile(source);
        }
    }

    TicketSource::TicketSource(std::vector<std::string> sources, std::chrono::milliseconds httpTimeout,
                               std::optional<signing::SigningKeys> keys)
        : _sources{std::move(sources)}
        , _httpTimeout{httpTimeout}
        , _keys{std::move(keys)}
    {
    }

    std::optional<Ticket> TicketSource::verifiedTicket(std::string text, std::string& why) const
    {
        if (!_keys)
        {
            return directory::parseTicket(std::move(text), why);
        }
        auto result = signing::verifyTicket(text, *_keys, std::chrono::system_clock::now());
        if (auto const* refused = std::get_if<signing::RefusedTicket>(&result))
        {
            why = "refused: " + refused->reason;
            return std::nullopt;
        }
        return directory::parseTicket(std::get<signing::VerifiedTicket>(std::move(result)).json, why);
    }

    std::optional<Ticket> TicketSource::fetch()
    {
        _lastFailure.clear();
        for (auto const& source : _sources)
        {
            auto const body = readSource(source, _httpTimeout);
            std::string why;
            if (auto const* failure = std::get_if<HttpFailure>(&body))
            {
                why = failure->reason;
            }
            else if (auto ticket = verifiedTicket(std::get<std::string>(body), why))
            {
                _lastOrigin = source;
                return ticket;
            }
            _lastFailure += fmt::format("{}'{}': {}", _lastFailure.empty() ? "" : "; ", source, why);
        }
        return std::nullopt;
    }
}
