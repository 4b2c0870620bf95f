// The target-info ticket as the demo handles it: the library's JSON, carried as base64 on the command line or as the
// raw JSON in a file ("@path") or at an etcd key. Checked here so that a wrong ticket is one clear line, not a library failure later.
#pragma once

#include <SigningKeys.hpp>
#include <directory/Ticket.hpp>

#include <optional>
#include <string>

namespace mxl::demo
{
    using directory::Ticket;

    // Reads an initiator's `-t` argument: "@path" for a JSON file, "etcd://host:port/key" for the ticket a target
    // publishes in the facility's etcd (lib/directory/TicketKey.hpp), anything else is base64 of the JSON. Throws
    // ToolError(Usage) naming what is wrong.
    // With `keys`, the ticket must carry a signature made with them (lib/signing/TicketSignature.hpp), which is checked and
    // removed.
    Ticket loadTicket(std::string const& argument, std::optional<signing::SigningKeys> const& keys);

    // The target's `-t` argument: writes `json` (no trailing NUL) to the path, a leading '@' stripped, atomically
    // (temporary file + rename) and readable by the owner only. Throws ToolError(Failure).
    void writeTicketFile(std::string const& argument, std::string const& json);
}
