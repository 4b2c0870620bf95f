#include "ServiceInterface.hpp"

#include <FabricsInterfaces.hpp>

#include <fmt/format.h>

namespace mxl::service
{
    mxlFabricsInterfaceConfig ServiceInterface::setupConfig() const
    {
        mxlFabricsInterfaceConfig config{};
        config.version = MXL_FABRICS_API_VERSION;
        config.provider = provider;
        config.caps.version = MXL_FABRICS_API_VERSION;
        config.caps.flags = capabilityFlags;
        config.caps.maxMessageSize = maxMessageSize;
        config.address.node = node.empty() ? nullptr : node.c_str();
        config.address.service = service.empty() ? nullptr : service.c_str();
        return config;
    }

    ServiceInterface selectInterface(mxlFabricsInstance fabrics, ServiceConfig const& config)
    {
        // An shm node is a name of our choosing, not an address the list could hold.
        bool const nodeIsName = config.provider == MXL_FABRICS_PROVIDER_SHM;
        auto const interfaces = tools::listFabricsInterfaces(fabrics, config.provider, nodeIsName ? std::string{} : config.node);
        if (interfaces.empty())
        {
            if (!config.node.empty() && !nodeIsName)
            {
                throw ConfigError{fmt::format("{}: key 'node' value '{}': no {} interface on this host has that address (mxl-fabrics-info "
                                              "lists them)",
                                              config.origin, config.node, tools::providerName(config.provider))};
            }
            throw ConfigError{fmt::format("{}: key 'provider' value '{}': this host has no such interface (mxl-fabrics-info lists them)",
                                          config.origin, tools::providerName(config.provider))};
        }
        auto const& chosen = interfaces.front();
        ServiceInterface selected;
        selected.provider = chosen.provider;
        selected.capabilityFlags = chosen.capabilityFlags;
        selected.maxMessageSize = chosen.maxMessageSize;
        bool const bindToInterface = config.role == Role::Target && !nodeIsName;
        selected.node = config.node.empty() && bindToInterface ? chosen.node : config.node;
        selected.service = config.service.empty() && config.role == Role::Target && !nodeIsName ? "0" : config.service;
        return selected;
    }
}
