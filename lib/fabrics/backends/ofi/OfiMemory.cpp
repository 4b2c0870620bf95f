#include "fabrics/backends/ofi/OfiMemory.hpp"

#include "fabrics/transport/DeviceMemoryKnob.hpp"

namespace mxl::fabrics
{
    namespace
    {
        // The msg transport sends from a source and receives (then copies) for a target.
        std::uint64_t accessOf(MemoryAccess access, Transport transport) noexcept
        {
            if (transport == Transport::Msg)
            {
                return access == MemoryAccess::RemoteWrite ? FI_RECV : FI_SEND;
            }
            return access == MemoryAccess::RemoteWrite ? FI_REMOTE_WRITE : FI_WRITE;
        }
    }

    OfiMemory::OfiMemory(Domain const& domain, void const* base, std::size_t length, MemoryAccess access, Transport transport)
        : TransportMemory{base, length}
        , _region{domain, base, length, accessOf(access, transport)}
        , _virtualAddresses{domain.usesVirtualAddresses()}
        , _key{_region.key()}
    {
    }

    OfiMemory::OfiMemory(Domain const& domain, void const* base, std::size_t length, MemoryAccess access, Transport transport,
                         int cudaDevice)
        : TransportMemory{base, length}
        , _region{domain, base, length, accessOf(access, transport), deviceMemoryIsHost() ? FI_HMEM_SYSTEM : FI_HMEM_CUDA, cudaDevice}
        , _virtualAddresses{domain.usesVirtualAddresses()}
        , _key{_region.key()}
    {
    }

    RemoteRegion OfiMemory::remote() const
    {
        auto const addr = _virtualAddresses ? reinterpret_cast<std::uintptr_t>(base()) : 0;
        return {addr, length(), _key};
    }
}
