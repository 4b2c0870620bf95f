// One interface opened over libfabric for one role: the fi_info chosen for it, its fabric and domain, and what the
// transport-neutral side plans with.
#pragma once

#include "fabrics/backends/ofi/Domain.hpp"
#include "fabrics/backends/ofi/InterfaceSelection.hpp"
#include "fabrics/core/TransportDomain.hpp"

#include <memory>

namespace mxl::fabrics
{
    class OfiDomain final : public TransportDomain
    {
    public:
        explicit OfiDomain(SelectedInterface selected);

        [[nodiscard]] std::unique_ptr<TransportMemory> registerMemory(void const* base, std::size_t length,
                                                                      MemoryAccess access) const override;

        OfiProvider const& traits;
        Info info;
        Fabric fabric;
        Domain domain;
    };

    // Selects the interface `config` names for the transport `asked` (the API's checks, InterfaceChecks.hpp, come first) and opens it. Held
    // by pointer: endpoints, queues and registrations refer to its fabric and domain.
    [[nodiscard]] std::unique_ptr<OfiDomain> openOfiDomain(mxlFabricsInterfaceConfig const& config, Role role, Transport asked);
}
