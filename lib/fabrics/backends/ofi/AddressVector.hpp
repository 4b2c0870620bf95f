// fid_av: the peers an RDM endpoint can address, by the raw fabric addresses of their tickets.
#pragma once

#include "fabrics/backends/ofi/Domain.hpp"

#include <cstdint>
#include <vector>

namespace mxl::fabrics
{
    class AddressVector
    {
    public:
        explicit AddressVector(Domain const& domain);

        [[nodiscard]] fid_av* get() const noexcept
        {
            return _av.get();
        }

        fi_addr_t insert(std::vector<std::uint8_t> const& address);
        void remove(fi_addr_t address) noexcept;

    private:
        Fid<fid_av> _av;
    };
}
