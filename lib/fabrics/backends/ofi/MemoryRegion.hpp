// fid_mr: one registered range (a grain's header and payload) with its local descriptor and remote key.
#pragma once

#include "fabrics/backends/ofi/Domain.hpp"

#include <cstddef>
#include <cstdint>

namespace mxl::fabrics
{
    class MemoryRegion
    {
    public:
        // `access` is FI_WRITE (initiator: source of writes) or FI_REMOTE_WRITE (target: written by peers). `iface`
        // FI_HMEM_CUDA registers memory of CUDA device `cudaDevice` (the domain has FI_HMEM); FI_HMEM_SYSTEM host memory.
        MemoryRegion(Domain const& domain, void const* base, std::size_t length, std::uint64_t access, fi_hmem_iface iface = FI_HMEM_SYSTEM,
                     int cudaDevice = 0);

        [[nodiscard]] void* descriptor() const noexcept
        {
            return fi_mr_desc(_mr.get());
        }

        [[nodiscard]] std::uint64_t key() const noexcept
        {
            return fi_mr_key(_mr.get());
        }

        [[nodiscard]] std::uint8_t* base() const noexcept
        {
            return _base;
        }

        [[nodiscard]] std::size_t length() const noexcept
        {
            return _length;
        }

    private:
        Fid<fid_mr> _mr;
        std::uint8_t* _base;
        std::size_t _length;
    };
}
