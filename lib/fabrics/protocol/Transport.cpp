#include "fabrics/protocol/Transport.hpp"

#include "common/Log.hpp"
#include "common/Status.hpp"

namespace mxl::fabrics
{
    std::string_view transportName(Transport transport) noexcept
    {
        switch (transport)
        {
        case Transport::Auto:
            return "auto";
        case Transport::Rma:
            return "rma";
        case Transport::Msg:
            return "msg";
        }
        return "auto";
    }

    std::optional<Transport> transportFromName(std::string_view name) noexcept
    {
        for (auto const transport : {Transport::Auto, Transport::Rma, Transport::Msg})
        {
            if (transportName(transport) == name)
            {
                return transport;
            }
        }
        return std::nullopt;
    }

    void logTransportChoice(std::string_view subject, TransportChoice const& choice)
    {
        if (choice.transport == Transport::Msg && choice.reason != "asked")
        {
            log::warn("{}: transport: msg ({}); msg needs this library at both ends", subject, choice.reason);
            return;
        }
        log::info("{}: transport: {} ({})", subject, transportName(choice.transport), choice.reason);
    }

    TransportChoice chooseTransport(Transport asked, std::string_view provider, std::optional<std::string> const& missingRma)
    {
        switch (asked)
        {
        case Transport::Msg:
            return {Transport::Msg, "asked"};
        case Transport::Rma:
            if (missingRma)
            {
                fail(MXL_ERR_INVALID_ARG, "transport rma was asked for, but provider {} has no {}; ask for transport msg or auto", provider,
                     *missingRma);
            }
            return {Transport::Rma, "asked"};
        case Transport::Auto:
            break;
        }
        if (missingRma)
        {
            return {Transport::Msg, fmt::format("provider {} has no {}", provider, *missingRma)};
        }
        return {Transport::Rma, fmt::format("provider {} has RMA with remote CQ data", provider)};
    }
}
