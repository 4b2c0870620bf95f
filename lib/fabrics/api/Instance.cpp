#include "fabrics/api/Instance.hpp"

#include "common/Status.hpp"
#include "fabrics/core/InterfaceChecks.hpp"
#include "fabrics/core/SetupOptions.hpp"
#include "fabrics/protocol/MappedFlow.hpp"

namespace mxl::fabrics
{
    std::unique_ptr<Initiator> setupInitiator(Backend& backend, mxlFabricsInitiatorConfig const& config, char const* options)
    {
        auto const parsed = SetupOptions::parse(options);
        auto const& memory = flowMemoryOf(config.reader, "initiator");
        checkInterfaceConfig(config.interface);
        auto opened = openFlowDomain(backend, config.interface, Role::Initiator, parsed.transport, parsed.devicePayloads, memory);
        logTransportChoice("fabrics initiator", {opened.domain->reported.transport, opened.domain->reported.transportReason});
        auto transport = backend.openInitiator(*opened.domain, parsed.cqDepth.value_or(0));
        auto initiator = std::make_unique<Initiator>(std::move(opened), std::move(transport), backend.identity().name,
                                                     config.interface.provider, memory, config.interface.caps);
        if (parsed.admissionKeys)
        {
            initiator->proveTicketKey(parsed.admissionKeys->current);
        }
        initiator->markIncarnation(parsed.incarnationMark);
        return initiator;
    }
}
