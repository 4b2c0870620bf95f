// The interfaces libmxl-fabrics can use on this host, and how the tools name providers and capabilities.
// Header-only so that tools without fabrics never link libmxl-fabrics.
#pragma once

#include <mxl/fabrics.h>

#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace mxl::tools
{
    // "tcp", "verbs", "efa", "shm" or "any", as the library spells them.
    inline std::string providerName(mxlFabricsProvider provider)
    {
        char name[16] = {};
        auto size = sizeof name;
        if (::mxlFabricsProviderToString(provider, name, &size) != MXL_STATUS_OK)
        {
            return fmt::format("provider#{}", static_cast<int>(provider));
        }
        return name;
    }

    // The user-facing provider names; "any" is a query value only and is not accepted here.
    inline std::optional<mxlFabricsProvider> parseProvider(std::string const& name)
    {
        mxlFabricsProvider provider = MXL_FABRICS_PROVIDER_ANY;
        if (name == "any" || ::mxlFabricsProviderFromString(name.c_str(), &provider) != MXL_STATUS_OK)
        {
            return std::nullopt;
        }
        return provider;
    }

    // "BLOCKING_OPERATIONS|REMOTE_WRITE|SEND_RECEIVE" in that order, "<none>" for no flag.
    inline std::string capabilityNames(std::uint64_t flags)
    {
        struct Named
        {
            std::uint64_t flag;
            char const* name;
        };
        static constexpr Named names[] = {
            {MXL_FABRICS_IFACE_CAP_BLOCKING_OPERATIONS, "BLOCKING_OPERATIONS"},
            {MXL_FABRICS_IFACE_CAP_REMOTE_WRITE, "REMOTE_WRITE"},
            {MXL_FABRICS_IFACE_CAP_SEND_RECEIVE, "SEND_RECEIVE"},
        };
        std::string text;
        for (auto const& [flag, name] : names)
        {
            if ((flags & flag) != 0)
            {
                text += text.empty() ? name : fmt::format("|{}", name);
            }
        }
        return text.empty() ? "<none>" : text;
    }

    // One interface, copied out of the library's list so that it outlives it.
    struct FabricsInterface
    {
        mxlFabricsProvider provider = MXL_FABRICS_PROVIDER_ANY;
        std::uint64_t capabilityFlags = 0;
        std::uint64_t maxMessageSize = 0;
        std::string node;
        std::string service;
        // JSON object of provider attributes; empty when the library reports none.
        std::string attributes;
    };

    // mxlFabricsGetInterfaces filtered by provider (ANY = all) and node (empty = all), in the library's order.
    inline std::vector<FabricsInterface> listFabricsInterfaces(mxlFabricsInstance fabrics, mxlFabricsProvider provider,
                                                               std::string const& node)
    {
        mxlFabricsInterfaceConfig query{};
        query.version = MXL_FABRICS_API_VERSION;
        query.provider = provider;
        query.caps.version = MXL_FABRICS_API_VERSION;
        query.address.node = node.empty() ? nullptr : node.c_str();
        bool const filtered = provider != MXL_FABRICS_PROVIDER_ANY || !node.empty();

        mxlFabricsInterfaceList* list = nullptr;
        if (auto const status = ::mxlFabricsGetInterfaces(fabrics, filtered ? &query : nullptr, &list); status != MXL_STATUS_OK)
        {
            throw std::runtime_error{fmt::format("cannot list fabrics interfaces (mxlStatus {})", static_cast<int>(status))};
        }
        std::vector<FabricsInterface> interfaces;
        for (auto const* entry = list; entry != nullptr; entry = entry->next)
        {
            auto const& config = entry->interface;
            interfaces.push_back(
                {config.provider, config.caps.flags, config.caps.maxMessageSize, config.address.node != nullptr ? config.address.node : "",
                 config.address.service != nullptr ? config.address.service : "", config.attr != nullptr ? config.attr : ""});
        }
        ::mxlFabricsFreeInterfaceList(list);
        return interfaces;
    }
}
