#include "DomainIdentity.hpp"

#include "ServiceLog.hpp"

#include <DomainDefinition.hpp>
#include <HostName.hpp>

namespace mxl::service
{
    std::optional<std::string> establishDomainIdentity(std::filesystem::path const& domain)
    {
        try
        {
            auto const definition = nmos::readOrCreateDomainDefinition(domain, nmos::hostName());
            log::info("MXL domain '{}': id {}, label '{}' ({} domain_def.json)", domain.string(), definition.id, definition.label,
                      definition.created ? "created" : "read from");
            return definition.id;
        }
        catch (nmos::DomainDefinitionError const& error)
        {
            log::warning("MXL domain '{}' has no usable identity: {}; the flow moves regardless", domain.string(), error.what());
            return std::nullopt;
        }
    }
}
