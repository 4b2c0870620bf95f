#include "InterfaceChoice.hpp"

#include "ToolError.hpp"

#include <client/FabricsInterfaces.hpp>

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

        void checkPort(std::string const& service, mxlFabricsProvider provider)
        {
            unsigned port = 0;
            auto const [end, error] = std::from_chars(service.data(), service.data() + service.size(), port);
            if (error != std::errc{} || end != service.data() + service.size() || port > 65535)
            {
                tools::badInput("service '{}' is not a port number (0-65535), which {} needs", service, client::providerName(provider));
            }
        }
    }

    ChosenInterface chooseInterface(mxlFabricsInstance fabrics, mxlFabricsProvider provider, std::string const& node,
                                    std::string const& service, EndpointRole role)
    {
        auto const interfaces = client::interfacesMatching(fabrics, provider, node);
        auto const best = std::max_element(interfaces.begin(), interfaces.end(),
                                           [](auto const& a, auto const& b) { return preference(a.provider) < preference(b.provider); });
        if (best == interfaces.end())
        {
            tools::badInput("no {} interface{} on this host (mxl-fabrics-info lists them)",
                            provider == MXL_FABRICS_PROVIDER_ANY ? "fabrics" : client::providerName(provider),
                            node.empty() || client::nodeIsName(provider) ? std::string{} : fmt::format(" has address '{}'", node));
        }

        auto const chosen = client::chooseEntry(*best, node, service, role);
        if (client::usesPortNumbers(chosen.provider) && !chosen.service.empty())
        {
            checkPort(chosen.service, chosen.provider);
        }
        fmt::print("Selected interface: provider {} node {} service {} capabilities {} max-message {}\n",
                   client::providerName(chosen.provider), chosen.node.empty() ? "<any>" : chosen.node,
                   chosen.service.empty() ? "<any>" : chosen.service, client::capabilityNames(chosen.capabilityFlags),
                   chosen.maxMessageSize);
        return chosen;
    }
}
