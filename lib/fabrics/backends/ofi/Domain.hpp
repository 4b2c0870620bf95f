// fid_domain: one NIC (or the loopback / shared-memory pseudo device) opened for memory registration and endpoints.
#pragma once

#include "fabrics/backends/ofi/Fabric.hpp"

#include <rdma/fi_domain.h>

namespace mxl::fabrics
{
    class Domain
    {
    public:
        Domain(Fabric const& fabric, Info const& info);

        [[nodiscard]] fid_domain* get() const noexcept
        {
            return _domain.get();
        }

        // Remote addresses are virtual addresses (FI_MR_VIRT_ADDR) rather than offsets into each region.
        [[nodiscard]] bool usesVirtualAddresses() const noexcept
        {
            return _virtualAddresses;
        }

    private:
        Fid<fid_domain> _domain;
        bool _virtualAddresses;
    };
}
