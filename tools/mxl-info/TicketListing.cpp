#include "TicketListing.hpp"

#include <common/BoundedJson.hpp>

#include "ToolError.hpp"

#include <DirectoryError.hpp>
#include <EtcdClient.hpp>
#include <TicketKey.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace mxl::tools::info
{
    namespace
    {
        std::string describeTicket(std::string const& value)
        {
            auto const ticket = mxl::parseJsonOrDiscarded(value);
            if (!ticket.is_object())
            {
                return fmt::format("not a ticket ({} bytes that are not a JSON object)", value.size());
            }
            auto const text = [&](char const* key)
            { return ticket.contains(key) && ticket[key].is_string() ? ticket[key].get<std::string>() : std::string{"-"}; };
            auto const regions = ticket.contains("regions") && ticket["regions"].is_array() ? ticket["regions"].size() : 0;
            return fmt::format("epoch {}, provider {}, {} regions{}", text("epoch"), text("provider"), regions,
                               ticket.contains("bounceBufferInfo") ? ", audio bounce buffer" : "");
        }
    }

    void printTicketListing(std::string const& url)
    {
        directory::EtcdLocation location;
        try
        {
            location = directory::parseEtcdUrl(
                url.find('/', directory::etcdScheme.size()) == std::string::npos ? url + std::string{directory::ticketKeyPrefix} : url);
        }
        catch (directory::DirectoryError const& error)
        {
            badInput("--tickets {}", error.what());
        }
        std::vector<directory::KeyValue> tickets;
        try
        {
            directory::EtcdClient client{location.endpoint, std::chrono::seconds{5}};
            tickets = client.list(location.key);
        }
        catch (directory::DirectoryError const& error)
        {
            runtimeFailure("{}", error.what());
        }
        fmt::print("etcd {} under {}: {} ticket{}\n", location.endpoint, location.key, tickets.size(), tickets.size() == 1 ? "" : "s");
        for (auto const& ticket : tickets)
        {
            fmt::print("  {}\n      {}, lease {}\n", ticket.key, describeTicket(ticket.value),
                       ticket.lease == 0 ? std::string{"none"} : fmt::format("{:x}", ticket.lease));
        }
    }
}
