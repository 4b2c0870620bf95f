// mxl-info --tickets: the tickets a facility's etcd holds (lib/directory/TicketKey.hpp), one line each.
#pragma once

#include <string>

namespace mxl::tools::info
{
    // `url` is etcd://host:port[/prefix]; without a prefix, every ticket (/mxl/tickets/). Throws ToolError: Usage for a
    // malformed URL, Failure when etcd cannot be read.
    void printTicketListing(std::string const& url);
}
