// Setting the target service's fabrics target up on its flow and reading back its ticket (the redundant paths' targets
// are bridge::PathTargets').
#pragma once

#include "ServiceConfig.hpp"
#include <directory/Ticket.hpp>

#include <client/FabricsHandles.hpp>
#include <client/FabricsInterfaceChoice.hpp>

#include <mxl/flow.h>

#include <string_view>

namespace mxl::service
{
    using directory::Ticket;

    // The ticket of a target the library set up (its JSON); throws std::runtime_error when it is not one, or has no epoch.
    Ticket libraryTicket(std::string json);

    // Sets `target` up to listen on `interface` and receive into `writer`; returns the ticket as the library made it
    // (unsigned). Throws ConfigError naming `keys` (the settings that chose the interface) when the target cannot listen
    // there, std::runtime_error when the ticket cannot be read back.
    Ticket listenForTicket(client::FabricsTarget const& target, client::FabricsInterface const& interface, mxlFlowWriter writer,
                           ServiceConfig const& config, std::string_view keys);
}
