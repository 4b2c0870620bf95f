// One interface opened over libfabric for one role: the fi_info chosen for it, its fabric and domain, and what the
// transport-neutral side plans with.
#pragma once

#include "fabrics/backends/ofi/Domain.hpp"
#include "fabrics/backends/ofi/InterfaceSelection.hpp"
#include "fabrics/protocol/TransportDomain.hpp"

#include <memory>

namespace mxl::fabrics
{
    class OfiDomain final : public TransportDomain
    {
    public:
        // `forDeviceMemory`: `selected` was chosen to register device memory as well.
        OfiDomain(SelectedInterface selected, bool forDeviceMemory);

        [[nodiscard]] std::unique_ptr<TransportMemory> registerMemory(void const* base, std::size_t length,
                                                                      MemoryAccess access) const override;
        [[nodiscard]] std::unique_ptr<TransportMemory> registerDeviceMemory(void const* base, std::size_t length, MemoryAccess access,
                                                                            int cudaDevice) const override;

        bool const deviceMemory;
        OfiProvider const& traits;
        Info info;
        Fabric fabric;
        Domain domain;
    };

    // Selects the interface `config` names for the transport `asked` (the API's checks, InterfaceChecks.hpp, come first) and opens it,
    // for device memory too where `deviceMemory` (selectInterface says when that is refused). Held by pointer: endpoints, queues and
    // registrations refer to its fabric and domain.
    [[nodiscard]] std::unique_ptr<OfiDomain> openOfiDomain(mxlFabricsInterfaceConfig const& config, Role role, Transport asked,
                                                           bool deviceMemory);
}
