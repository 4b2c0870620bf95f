// A target-info ticket as the services pass it around: the library's JSON text plus what the services read from it.
// The epoch (the key "epoch", a decimal string the fabrics library adds and MXL parsers ignore) is a nonce per target
// incarnation: a different epoch means the target restarted and every old ticket is stale.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace mxl::service
{
    struct Ticket
    {
        std::string json;
        // 0 when the ticket has none (a target without this extension); tickets are then told apart by their text.
        std::uint64_t epoch = 0;
        std::string provider;
        // The target receives an audio flow: its ticket names the bounce buffer initiators write batches into.
        bool carriesSamples = false;
        // "rma" (no "transport" key, as the SDK's tickets) or "msg" (docs/fabrics.md, "Send/receive transport").
        std::string transport = "rma";

        [[nodiscard]] bool sameIncarnation(Ticket const& other) const noexcept
        {
            return epoch != 0 || other.epoch != 0 ? epoch == other.epoch : json == other.json;
        }
    };

    // nullopt with `why` set when the text is not a ticket (not a JSON object, no provider, a malformed epoch).
    std::optional<Ticket> parseTicket(std::string text, std::string& why);
}
