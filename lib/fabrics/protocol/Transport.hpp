// How the bytes of a write travel: RMA (remote writes with remote CQ data, the MXL SDK's wire) or MSG (sends into
// receive buffers the target posted, which the target places where the write would have landed; docs/fabrics.md,
// "Send/receive transport"). Asked for in the setup options, chosen per interface, shown in tickets and log lines.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace mxl::fabrics
{
    enum class Transport
    {
        Auto, // asked only: RMA where the interface has it, otherwise MSG
        Rma,
        Msg,
    };

    // "auto", "rma", "msg".
    [[nodiscard]] std::string_view transportName(Transport transport) noexcept;
    [[nodiscard]] std::optional<Transport> transportFromName(std::string_view name) noexcept;

    struct TransportChoice
    {
        Transport transport = Transport::Rma;
        // For the log line "transport: msg (<reason>)": "asked", or what the interface lacks.
        std::string reason;
    };

    // Resolves `asked` for an interface of `provider` that has RMA with remote CQ data or not (`missingRma` names what
    // it lacks). RMA asked of an interface without it → MXL_ERR_INVALID_ARG naming the provider and the capability:
    // never a silent downgrade.
    // "<subject>: transport: msg (<reason>)": at warn when msg was not asked for (a fallback must be seen), else at info.
    void logTransportChoice(std::string_view subject, TransportChoice const& choice);

    [[nodiscard]] TransportChoice chooseTransport(Transport asked, std::string_view provider, std::optional<std::string> const& missingRma);
}
