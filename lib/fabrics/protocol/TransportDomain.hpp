// One interface a transport opened for one role: the facts the protocol plans with, and where the memory its writes
// read from is registered. It outlives every registration, queue and connection made over it.
#pragma once

#include "fabrics/protocol/DomainInfo.hpp"
#include "fabrics/protocol/TransportMemory.hpp"

#include <cstddef>
#include <memory>

namespace mxl::fabrics
{
    // What an interface is opened for: a target is written to, an initiator writes.
    enum class Role
    {
        Target,
        Initiator,
    };

    class TransportDomain
    {
    public:
        explicit TransportDomain(DomainInfo info) noexcept
            : reported{info}
        {
        }

        TransportDomain(TransportDomain const&) = delete;
        TransportDomain& operator=(TransportDomain const&) = delete;
        virtual ~TransportDomain() = default;

        [[nodiscard]] virtual std::unique_ptr<TransportMemory> registerMemory(void const* base, std::size_t length,
                                                                              MemoryAccess access) const = 0;
        // Memory of CUDA device `cudaDevice` (an ordinal of this process); only a domain Backend::openDeviceDomain
        // opened takes it, any other refuses with MXL_ERR_UNSUPPORTED_OPERATION.
        [[nodiscard]] virtual std::unique_ptr<TransportMemory> registerDeviceMemory(void const* base, std::size_t length,
                                                                                    MemoryAccess access, int cudaDevice) const = 0;

        DomainInfo const reported;
    };
}
