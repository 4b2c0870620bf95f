#include "fabrics/backends/ucx/UcxMemory.hpp"

#include "common/Status.hpp"
#include "fabrics/backends/ucx/UcxError.hpp"

#include <fmt/format.h>

namespace mxl::fabrics::ucx
{
    UcxMemory::UcxMemory(UcxDomain& domain, void const* base, std::size_t length, bool remoteWrite, bool cuda)
        : _domain{domain}
        , _context{domain.context()}
        , _base{base}
        , _length{length}
    {
        ucp_mem_map_params_t params{};
        params.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
        params.address = const_cast<void*>(base);
        params.length = length;
        if (cuda)
        {
            params.field_mask |= UCP_MEM_MAP_PARAM_FIELD_MEMORY_TYPE;
            params.memory_type = UCS_MEMORY_TYPE_CUDA;
        }
        auto const mapped = ucp_mem_map(_context, &params, &_handle);
        if (mapped != UCS_OK && cuda)
        {
            // Whatever the status, UCX cannot take this device memory (an IPC-imported ring, say): the caller may stage.
            fail(MXL_ERR_UNSUPPORTED_OPERATION, "ucx: mapping {} bytes of CUDA device memory at {} failed: {}", length, base,
                 ucs_status_string(mapped));
        }
        checkUcx(mapped, fmt::format("ucx: mapping {} bytes at {}", length, base));
        if (!remoteWrite)
        {
            return;
        }
        void* packed = nullptr;
        std::size_t packedSize = 0;
        auto const status = ucp_rkey_pack(_context, _handle, &packed, &packedSize);
        if (status != UCS_OK)
        {
            ucp_mem_unmap(_context, _handle);
            checkUcx(status, fmt::format("ucx: packing the rkey of {} bytes at {}", length, base));
        }
        auto const* bytes = static_cast<std::uint8_t const*>(packed);
        try
        {
            _packedKey.assign(bytes, bytes + packedSize);
            domain.addWritable(reinterpret_cast<std::uintptr_t>(base), length);
        }
        catch (...)
        {
            ucp_rkey_buffer_release(packed);
            ucp_mem_unmap(_context, _handle);
            throw;
        }
        ucp_rkey_buffer_release(packed);
        _writable = true;
    }

    UcxMemory::~UcxMemory()
    {
        if (_writable)
        {
            _domain.removeWritable(reinterpret_cast<std::uintptr_t>(_base), _length);
        }
        ucp_mem_unmap(_context, _handle);
    }

    mxlFabricsBackendRemoteRegion UcxMemory::remote() const noexcept
    {
        return {reinterpret_cast<std::uintptr_t>(_base), _length, {_packedKey.data(), _packedKey.size()}};
    }
}
