#include "ServiceInterface.hpp"

#include <client/FabricsInterfaces.hpp>

#include <fmt/format.h>

#include <string>

namespace mxl::service
{
    client::FabricsInterface selectInterface(mxlFabricsInstance fabrics, ServiceConfig const& config)
    {
        return selectInterface(fabrics, config, config.node, "node");
    }

    client::FabricsInterface selectInterface(mxlFabricsInstance fabrics, ServiceConfig const& config, std::string const& node,
                                             std::string_view key)
    {
        auto const interfaces = client::interfacesMatching(fabrics, config.provider, node);
        if (interfaces.empty())
        {
            if (!node.empty() && !client::nodeIsName(config.provider))
            {
                throw ConfigError{fmt::format("{}: key '{}' value '{}': no {} interface on this host has that address (mxl-fabrics-info "
                                              "lists them)",
                                              config.origin, key, node, client::providerName(config.provider))};
            }
            throw ConfigError{fmt::format("{}: key 'provider' value '{}': this host has no such interface (mxl-fabrics-info lists them)",
                                          config.origin, client::providerName(config.provider))};
        }
        auto const role = config.role == Role::Target ? client::EndpointRole::Target : client::EndpointRole::Initiator;
        bool const providerPicksService =
            config.service.empty() && role == client::EndpointRole::Target && !client::nodeIsName(config.provider);
        return client::chooseEntry(interfaces.front(), node, providerPicksService ? std::string{"0"} : config.service, role);
    }
}
