// The interfaces libmxl-fabrics can use on this host, and how the tools name providers and capabilities.
// Header-only so that programs without fabrics never link libmxl-fabrics.
#pragma once

#include <mxl/fabrics.h>

#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace mxl::client
{
    struct NamedProvider
    {
        mxlFabricsProvider provider;
        char const* name;
    };

    // The names mxlFabricsProviderFromString/ToString use. Kept here too so that checking a user's word does not make
    // the library log an error for every typo.
    inline constexpr NamedProvider providerNames[] = {
        {MXL_FABRICS_PROVIDER_ANY, "any"}, {MXL_FABRICS_PROVIDER_TCP, "tcp"}, {MXL_FABRICS_PROVIDER_VERBS, "verbs"},
        {MXL_FABRICS_PROVIDER_EFA, "efa"}, {MXL_FABRICS_PROVIDER_SHM, "shm"},
    };

    inline std::string providerName(mxlFabricsProvider provider)
    {
        for (auto const& [value, name] : providerNames)
        {
            if (value == provider)
            {
                return name;
            }
        }
        return fmt::format("provider#{}", static_cast<int>(provider));
    }

    // nullopt for anything but the exact, lower-case names above.
    inline std::optional<mxlFabricsProvider> parseProvider(std::string const& text)
    {
        for (auto const& [value, name] : providerNames)
        {
            if (text == name)
            {
                return value;
            }
        }
        return std::nullopt;
    }

    // "BLOCKING_OPERATIONS|REMOTE_WRITE|SEND_RECEIVE|HMEM" in that order, "<none>" for no flag.
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
            {MXL_FABRICS_IFACE_CAP_HMEM, "HMEM"},
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

    // One interface, copied out of the library's list so that it outlives it; also the one a tool sets up on, an entry
    // of that list with the node and service the user asked for (FabricsInterfaceChoice.hpp).
    struct FabricsInterface
    {
        mxlFabricsProvider provider = MXL_FABRICS_PROVIDER_ANY;
        std::uint64_t capabilityFlags = 0;
        std::uint64_t maxMessageSize = 0;
        std::string node;
        std::string service;
        // JSON object of provider attributes; empty when the library reports none.
        std::string attributes;

        [[nodiscard]] bool blocking() const noexcept
        {
            return (capabilityFlags & MXL_FABRICS_IFACE_CAP_BLOCKING_OPERATIONS) != 0;
        }
    };

    // The setup configuration for `interface`; it points into `interface`, which must outlive it.
    inline mxlFabricsInterfaceConfig interfaceConfig(FabricsInterface const& interface)
    {
        mxlFabricsInterfaceConfig config{};
        config.version = MXL_FABRICS_API_VERSION;
        config.provider = interface.provider;
        config.caps.version = MXL_FABRICS_API_VERSION;
        config.caps.flags = interface.capabilityFlags;
        config.caps.maxMessageSize = interface.maxMessageSize;
        config.address.node = interface.node.empty() ? nullptr : interface.node.c_str();
        config.address.service = interface.service.empty() ? nullptr : interface.service.c_str();
        return config;
    }

    // The setup configuration of a target or an initiator (mxlFabricsTargetConfig, mxlFabricsInitiatorConfig) on
    // `interface`, all but its flow; it points into `interface`, which must outlive it.
    template <typename EndpointConfig>
    EndpointConfig endpointConfig(FabricsInterface const& interface)
    {
        EndpointConfig config{};
        config.version = MXL_FABRICS_API_VERSION;
        config.interface = interfaceConfig(interface);
        return config;
    }

    // Setup options as the library takes them: null for none.
    [[nodiscard]] inline char const* setupOptionsOrNull(std::string const& options) noexcept
    {
        return options.empty() ? nullptr : options.c_str();
    }

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
