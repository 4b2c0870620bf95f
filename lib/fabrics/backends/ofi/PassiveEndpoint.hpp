// fid_pep: the listening side of a connection-oriented (FI_EP_MSG) target; its name is the ticket's address.
#pragma once

#include "fabrics/backends/ofi/EventQueue.hpp"
#include "fabrics/backends/ofi/Info.hpp"

#include <cstdint>
#include <vector>

namespace mxl::fabrics
{
    class PassiveEndpoint
    {
    public:
        PassiveEndpoint(Fabric const& fabric, Info const& info, EventQueue const& events);

        void listen();
        // Turns the connection request down: the initiator sees its connect refused, and no endpoint is made for it.
        void reject(Info const& request) noexcept;
        [[nodiscard]] std::vector<std::uint8_t> name() const;

        [[nodiscard]] fid_t fid() const noexcept
        {
            return _pep.fid();
        }

    private:
        Fid<fid_pep> _pep;
    };
}
