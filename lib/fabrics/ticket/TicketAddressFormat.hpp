// The address formats a ticket's "addressFormat" may carry. The numbers are libfabric's enum fi_addr_format values,
// which the ticket wire format (shared with the MXL SDK) took over: they are wire values, fixed here, and
// the libfabric side checks that they still match its headers (OfiProvider.cpp). UcxWorkerAddress is ours alone.
#pragma once

#include <cstdint>

namespace mxl::fabrics
{
    enum class TicketAddressFormat : std::uint32_t
    {
        Sockaddr = 1,
        SockaddrIn = 2,
        SockaddrIn6 = 3,
        SockaddrIb = 4,
        Str = 9,
        Efa = 12,
        // FI_SOCKADDR_IP of libfabric 2.x (absent from 1.17's headers): tickets of SDK builds may carry it.
        SockaddrIp = 14,
        // The bytes of ucp_worker_get_address (backends/ucx). Far above libfabric's enum, which grows by one per
        // provider, so that no libfabric format ever takes this number; SDK parsers reject it, as they should.
        UcxWorkerAddress = 0x4d580001,
    };

    // Every value above: a ticket with any other addressFormat is rejected.
    inline constexpr TicketAddressFormat ticketAddressFormats[] = {
        TicketAddressFormat::Sockaddr,    TicketAddressFormat::SockaddrIn,
        TicketAddressFormat::SockaddrIn6, TicketAddressFormat::SockaddrIb,
        TicketAddressFormat::Str,         TicketAddressFormat::Efa,
        TicketAddressFormat::SockaddrIp,  TicketAddressFormat::UcxWorkerAddress,
    };
}
