#include "TicketSource.hpp"

#include "DirectoryError.hpp"
#include "EtcdClient.hpp"
#include "TicketKey.hpp"

#include <common/BoundedFile.hpp>

#include <HttpClient.hpp>
#include <TicketSignature.hpp>

#include <fmt/format.h>

namespace mxl::directory
{
    namespace
    {
        std::optional<std::string> readEtcdKey(std::string const& url, std::chrono::milliseconds timeout, std::string& why)
        {
            try
            {
                auto const location = parseEtcdUrl(url);
                EtcdClient client{location.endpoint, timeout};
                if (auto found = client.get(location.key))
                {
                    return std::move(found->value);
                }
                why = "no such key (the target is not running, has not published yet, or its lease expired)";
            }
            catch (DirectoryError const& error)
            {
                why = error.what();
            }
            return std::nullopt;
        }
    }

    std::optional<std::string> readTicketText(std::string const& source, std::chrono::milliseconds timeout, std::string& why)
    {
        if (isHttpUrl(source))
        {
            auto body = httpGet(source, timeout);
            if (auto const* failure = std::get_if<HttpFailure>(&body))
            {
                why = failure->reason;
                return std::nullopt;
            }
            return std::get<std::string>(std::move(body));
        }
        if (isEtcdUrl(source))
        {
            return readEtcdKey(source, timeout, why);
        }
        try
        {
            return readBoundedFile(source);
        }
        catch (FileReadError const& error)
        {
            why = error.reason();
            return std::nullopt;
        }
    }

    std::optional<Ticket> verifiedTicket(std::string text, std::optional<signing::SigningKeys> const& keys, std::string& why)
    {
        if (!keys)
        {
            return parseTicket(std::move(text), why);
        }
        auto result = signing::verifyTicket(text, *keys, std::chrono::system_clock::now());
        if (auto const* refused = std::get_if<signing::RefusedTicket>(&result))
        {
            why = "refused: " + refused->reason;
            return std::nullopt;
        }
        return parseTicket(std::get<signing::VerifiedTicket>(std::move(result)).json, why);
    }

    TicketSource::TicketSource(std::vector<std::string> sources, std::chrono::milliseconds timeout,
                               std::optional<signing::SigningKeys> keys)
        : _sources{std::move(sources)}
        , _timeout{timeout}
        , _keys{std::move(keys)}
    {
    }

    std::optional<Ticket> TicketSource::fetch()
    {
        _lastFailure.clear();
        _lastFailures.clear();
        for (auto const& source : _sources)
        {
            std::string why;
            if (auto text = readTicketText(source, _timeout, why))
            {
                if (auto ticket = verifiedTicket(std::move(*text), why))
                {
                    _lastOrigin = source;
                    return ticket;
                }
            }
            _lastFailure += fmt::format("{}'{}': {}", _lastFailure.empty() ? "" : "; ", source, why);
            _lastFailures.push_back({source, why});
        }
        return std::nullopt;
    }
}
