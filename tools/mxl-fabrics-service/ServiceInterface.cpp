#include "ServiceInterface.hpp"

#include <FabricsInterfaces.hpp>

#include <fmt/format.h>

#include <string>

namespace mxl::service
{
    tools::FabricsInterface selectInterface(mxlFabricsInstance fabrics, ServiceConfig const& config)
    {
        return selectInterface(fabrics, config, config.node, "node");
    }

    tools::FabricsInterface selectInterface(mxlFabricsInstance fabrics, ServiceConfig const& config, std::string const& node,
                                            std::string_view key)
    {
        auto const interfaces = tools::interfacesMatching(fabrics, config.provider, node);
        if (interfaces.empty())
        {
            if (!node.empty() && !tools::nodeIsName(config.provider))
            {
                throw ConfigError{fmt::format("{}: key '{}' value '{}': no {} interface on this host has that address (mxl-fabrics-info "
                                              "lists them)",
                                              config.origin, key, node, tools::providerName(config.provider))};
            }
            throw ConfigError{fmt::format("{}: key 'provider' value '{}': this host has no such interface (mxl-fabrics-info lists them)",
                                          config.origin, tools::providerName(config.provider))};
        }
        auto const role = config.role == Role::Target ? tools::EndpointRole::Target : tools::EndpointRole::Initiator;
        bool const providerPicksService =
            config.service.empty() && role == tools::EndpointRole::Target && !tools::nodeIsName(config.provider);
        return tools::chooseEntry(interfaces.front(), node, providerPicksService ? std::string{"0"} : config.service, role);
    }
}
