// A target-info ticket as the tools pass it around: the fabrics library's JSON text (exactly what
// mxlFabricsTargetInfoFromString takes) and what the tools read from it. The one model of a ticket for the services,
// the demo and mxl-info, whatever brought it (a file, the command line, http, etcd).
// The epoch (the key "epoch", a decimal string the fabrics library adds and MXL parsers ignore) is a nonce per target
// incarnation: a different epoch means the target restarted and every old ticket is stale.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace mxl::directory
{
    struct Ticket
    {
        std::string json;
        // 0 when the ticket has none (a target without this extension); tickets are then told apart by their text.
        std::uint64_t epoch = 0;
        // The target's id (the library knows targets by it); 0 when the ticket has no decimal "id".
        std::uint64_t id = 0;
        // As the ticket names it ("tcp", "shm", ...).
        std::string provider;
        // The target receives an audio flow: its ticket names the bounce buffer initiators write batches into.
        bool carriesSamples = false;
        // "rma" (no "transport" key, as the SDK's tickets) or "msg" (docs/fabrics.md, "Send/receive transport").
        std::string transport = "rma";

        [[nodiscard]] bool sameIncarnation(Ticket const& other) const noexcept
        {
            return epoch != 0 || other.epoch != 0 ? epoch == other.epoch : json == other.json;
        }

        // Both carry epochs and the same target id, with other epochs: no target gives that (every incarnation draws
        // its id and its epoch anew), so one of the two was altered.
        [[nodiscard]] bool contradicts(Ticket const& other) const noexcept
        {
            return epoch != 0 && other.epoch != 0 && epoch != other.epoch && id != 0 && id == other.id;
        }
    };

    // nullopt with `why` set when the text is not a ticket (not a JSON object, no provider, a malformed epoch); the
    // fields the fabrics library reads are left to it, or to ticketFieldProblem.
    std::optional<Ticket> parseTicket(std::string text, std::string& why);

    // The ticket of a target this program set up (the library's JSON): throws std::runtime_error when it is not one, or
    // has no epoch (this library always gives one).
    Ticket libraryTicket(std::string json);

    // What is wrong with the fields the fabrics library reads from a ticket's JSON object, named one by one (e.g.
    // "'addressFormat' must be a number", "region 1: 'len' is \"big\", expected a decimal number"); "" when none is.
    std::string ticketFieldProblem(nlohmann::json const& ticket);
}
