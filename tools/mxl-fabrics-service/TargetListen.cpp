#include "TargetListen.hpp"

#include <client/TargetTicket.hpp>

#include <fmt/format.h>

#include <stdexcept>

namespace mxl::service
{
    Ticket listenForTicket(client::FabricsTarget const& target, client::FabricsInterface const& interface, mxlFlowWriter writer,
                           ServiceConfig const& config, std::string_view keys)
    {
        client::OwnedTargetInfo info;
        try
        {
            info = client::setUpTarget(target.get(), interface, writer, config.setupOptions);
        }
        catch (client::ClientError const& error)
        {
            throw ConfigError{fmt::format("{}: {} ({})", config.origin, error.what(), keys)};
        }
        return libraryTicket(client::ticketText(info.get()));
    }

    Ticket libraryTicket(std::string json)
    {
        std::string why;
        auto ticket = directory::parseTicket(std::move(json), why);
        if (!ticket || ticket->epoch == 0)
        {
            throw std::runtime_error{fmt::format("the fabrics library's ticket {}", ticket ? "has no epoch" : why)};
        }
        return std::move(*ticket);
    }
}
