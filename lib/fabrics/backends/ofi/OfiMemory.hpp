// A range registered in a libfabric domain, as the transport-neutral side holds it: the endpoint that posts a write
// takes its descriptor, a target's ticket its key and, under FI_MR_VIRT_ADDR, its address.
#pragma once

#include "fabrics/backends/ofi/Domain.hpp"
#include "fabrics/backends/ofi/MemoryRegion.hpp"
#include "fabrics/protocol/Transport.hpp"
#include "fabrics/protocol/TransportMemory.hpp"

namespace mxl::fabrics
{
    class OfiMemory final : public TransportMemory
    {
    public:
        OfiMemory(Domain const& domain, void const* base, std::size_t length, MemoryAccess access, Transport transport);
        // Memory of CUDA device `cudaDevice` (FI_HMEM_CUDA), or host memory under the test knob
        // MXL_FABRICS_DEVICE_MEMORY_IS_HOST=1; the domain was opened for device memory.
        OfiMemory(Domain const& domain, void const* base, std::size_t length, MemoryAccess access, Transport transport, int cudaDevice);

        [[nodiscard]] void* descriptor() const noexcept
        {
            return _region.descriptor();
        }

        // Kept, not asked for each time: a table's caller gets the key's bytes for as long as the memory lives.
        [[nodiscard]] std::uint64_t const& key() const noexcept
        {
            return _key;
        }

        [[nodiscard]] RemoteRegion remote() const override;

    private:
        MemoryRegion _region;
        bool _virtualAddresses;
        std::uint64_t _key;
    };

    // The registration behind a segment of a write this transport posts: every segment's memory was registered here.
    [[nodiscard]] inline OfiMemory const& ofiMemoryOf(TransportMemory const& memory) noexcept
    {
        return static_cast<OfiMemory const&>(memory);
    }
}
