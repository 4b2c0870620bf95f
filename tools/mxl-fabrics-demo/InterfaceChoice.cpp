#include "InterfaceChoice.hpp"

#include "ToolError.hpp"

#include <FabricsInterfaces.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

namespace mxl::demo
{
    namespace
    {
        int preference(mxlFabricsProvider provider)
        {
            switch (provider)
            {
            case MXL_FABRICS_PROVIDER_EFA:
                return 4;
            case MXL_FABRICS_PROVIDER_VERBS:
                return 3;
            case MXL_FABRICS_PROVIDER_TCP:
                return 2;
            case MXL_FABRICS_PROVIDER_SHM:
                return 1;
            default:
                return 0;
            }
        }

        bool usesPortNumbers(mxlFabricsProvider provider)
        {
            return provider == MXL_FABRICS_PROVIDER_TCP || provider == MXL_FABRICS_PROVIDER_VERBS;
        }

        void checkPort(std::string const& service, mxlFabricsProvider provider)
        {
            unsigned port = 0;
            auto const [end, error] = std::from_chars(service.data(), service.data() + service.size(), port);
            if (error != std::errc{} || end != service.data() + service.size() || port > 65535)
            {
                tools::badInput("service '{}' is not a port number (0-65535), which {} needs", service, tools::providerName(provider));
            }
        }
    }

    ChosenInterface chooseInterface(mxlFabricsInstance fabrics, mxlFabricsProvider provider, std::string const& node,
                                    std::string const& service, EndpointRole role)
    {
        // An shm node is a name of our choosing, not an address the interface list could contain.
        bool const nodeIsName = provider == MXL_FABRICS_PROVIDER_SHM;
        auto const interfaces = tools::listFabricsInterfaces(fabrics, provider, nodeIsName ? std::string{} : node);
        auto const best = std::max_element(interfaces.begin(), interfaces.end(),
                                           [](auto const& a, auto const& b) { return preference(a.provider) < preference(b.provider); });
        if (best == interfaces.end())
        {
            tools::badInput("no {} interface{} on this host (mxl-fabrics-info lists them)",
                            provider == MXL_FABRICS_PROVIDER_ANY ? "fabrics" : tools::providerName(provider),
                            node.empty() || nodeIsName ? std::string{} : fmt::format(" has address '{}'", node));
        }

        ChosenInterface chosen;
        chosen.provider = best->provider;
        chosen.capabilityFlags = best->capabilityFlags;
        chosen.maxMessageSize = best->maxMessageSize;
        // An shm endpoint is named after its node and service; left unnamed, the library picks a name unique to the
        // process, so that several targets and initiators can share a host.
        bool const bindToInterface = role == EndpointRole::Target && chosen.provider != MXL_FABRICS_PROVIDER_SHM;
        chosen.node = node.empty() && bindToInterface ? best->node : node;
        chosen.service = service;
        if (usesPortNumbers(chosen.provider) && !chosen.service.empty())
        {
            checkPort(chosen.service, chosen.provider);
        }
        fmt::print("Selected interface: provider {} node {} service {} capabilities {} max-message {}\n",
                   tools::providerName(chosen.provider), chosen.node.empty() ? "<any>" : chosen.node,
                   chosen.service.empty() ? "<any>" : chosen.service, tools::capabilityNames(chosen.capabilityFlags),
                   chosen.maxMessageSize);
        return chosen;
    }

    mxlFabricsInterfaceConfig interfaceConfig(ChosenInterface const& chosen)
    {
        mxlFabricsInterfaceConfig config{};
        config.version = MXL_FABRICS_API_VERSION;
        config.provider = chosen.provider;
        config.caps.version = MXL_FABRICS_API_VERSION;
        config.caps.flags = chosen.capabilityFlags;
        config.caps.maxMessageSize = chosen.maxMessageSize;
        config.address.node = chosen.node.empty() ? nullptr : chosen.node.c_str();
        config.address.service = chosen.service.empty() ? nullptr : chosen.service.c_str();
        return config;
    }
}
