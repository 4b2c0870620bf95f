#include "client/InterfaceAttributes.hpp"

#include "common/BoundedJson.hpp"

#include <cmath>

namespace mxl::client
{
    namespace
    {
        nlohmann::json attributesOf(FabricsInterface const& interface)
        {
            auto attributes = parseJsonOrDiscarded(interface.attributes);
            return attributes.is_object() ? attributes : nlohmann::json::object();
        }

        std::string attributeText(std::string const& key, nlohmann::json const& value)
        {
            if (key == "link_speed" && value.is_number())
            {
                return fmt::format("{} gbit/s", value.get<double>() / 1e9);
            }
            if (value.is_number_float() && value.get<double>() == std::floor(value.get<double>()))
            {
                return fmt::format("{:.0f}", value.get<double>());
            }
            return value.is_string() ? value.get<std::string>() : value.dump();
        }
    }

    std::vector<InterfaceAttribute> interfaceAttributes(FabricsInterface const& interface)
    {
        auto const object = attributesOf(interface);
        std::vector<InterfaceAttribute> attributes;
        // nlohmann::json objects iterate in sorted key order.
        for (auto const& [key, value] : object.items())
        {
            attributes.push_back({key, attributeText(key, value)});
        }
        return attributes;
    }

    std::string interfaceDevice(FabricsInterface const& interface)
    {
        auto const attributes = attributesOf(interface);
        return attributes.contains("device_name") ? attributeText("device_name", attributes["device_name"]) : "<none>";
    }

    std::string interfaceDescription(std::string const& name, FabricsInterface const& interface)
    {
        auto text =
            fmt::format("interface {}\n  provider: {}\n  node: {}\n  service: {}\n  max message: {} bytes\n  capabilities: {}\n  info:\n",
                        name, providerName(interface.provider), interface.node, interface.service.empty() ? "<none>" : interface.service,
                        interface.maxMessageSize, capabilityNames(interface.capabilityFlags));
        for (auto const& [key, value] : interfaceAttributes(interface))
        {
            text += fmt::format("    {}: {}\n", key, value);
        }
        return text;
    }
}
