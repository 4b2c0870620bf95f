#include "TicketSource.hpp"

#include "HttpGet.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

namespace mxl::service
{
    namespace
    {
        std::variant<std::string, HttpFailure> readFile(std::string const& path)
        {
            std::ifstream file{path};
            if (!file)
            {
                return HttpFailure{"cannot open the file"};
            }
            std::stringstream text;
            text << file.rdbuf();
            return text.str();
        }
    }

    TicketSource::TicketSource(std::vector<std::string> sources, std::chrono::milliseconds httpTimeout)
        : _sources{std::move(sources)}
        , _httpTimeout{httpTimeout}
    {
    }

    std::optional<Ticket> TicketSource::fetch()
    {
        _lastFailure.clear();
        for (auto const& source : _sources)
        {
            auto const body = source.starts_with("http://") ? httpGet(source, _httpTimeout) : readFile(source);
            std::string why;
            if (auto const* failure = std::get_if<HttpFailure>(&body))
            {
                why = failure->reason;
            }
            else if (auto ticket = parseTicket(std::get<std::string>(body), why))
            {
                _lastOrigin = source;
                return ticket;
            }
            _lastFailure += fmt::format("{}'{}': {}", _lastFailure.empty() ? "" : "; ", source, why);
        }
        return std::nullopt;
    }
}
