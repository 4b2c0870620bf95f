// One range mapped with ucp_mem_map over memory that already exists (never allocated by UCX). A range peers write
// into also carries its packed rkey, the key blob a ticket publishes for it.
#pragma once

#include "fabrics/backends/ucx/UcxDomain.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mxl::fabrics::ucx
{
    class UcxMemory
    {
    public:
        // `cuda`: the range is CUDA device memory (UCS_MEMORY_TYPE_CUDA), on a domain opened for it. `remoteWrite`: the
        // domain's target may place ordered writes in it too.
        UcxMemory(UcxDomain& domain, void const* base, std::size_t length, bool remoteWrite, bool cuda);
        ~UcxMemory();

        UcxMemory(UcxMemory const&) = delete;
        UcxMemory& operator=(UcxMemory const&) = delete;

        [[nodiscard]] ucp_mem_h handle() const noexcept
        {
            return _handle;
        }

        // The region as a ticket publishes it: UCX puts take virtual addresses, so `address` is the range's own.
        [[nodiscard]] mxlFabricsBackendRemoteRegion remote() const noexcept;

    private:
        UcxDomain& _domain;
        ucp_context_h _context;
        void const* _base;
        std::size_t _length;
        ucp_mem_h _handle = nullptr;
        std::vector<std::uint8_t> _packedKey;
        bool _writable = false;
    };
}
