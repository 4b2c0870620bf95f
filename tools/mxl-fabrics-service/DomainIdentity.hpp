// The service's MXL domain gets its identity (domain_def.json, lib/nmos/DomainDefinition.hpp) at start, and the journal
// says which. A domain_def.json that cannot be used is reported and left alone: the flow moves regardless.
#pragma once

#include <filesystem>

namespace mxl::service
{
    void establishDomainIdentity(std::filesystem::path const& domain);
}
