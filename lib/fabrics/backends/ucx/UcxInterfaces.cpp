#include "fabrics/backends/ucx/UcxInterfaces.hpp"

#include "common/Status.hpp"
#include "fabrics/backends/ucx/UcxCudaMemory.hpp"
#include "fabrics/transport/DeviceMemoryKnob.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>

namespace mxl::fabrics::ucx
{
    namespace
    {
        struct AddressesRelease
        {
            void operator()(ifaddrs* list) const noexcept
            {
                ::freeifaddrs(list);
            }
        };

        using Addresses = std::unique_ptr<ifaddrs, AddressesRelease>;

        Addresses interfaceAddresses()
        {
            ifaddrs* list = nullptr;
            if (::getifaddrs(&list) != 0)
            {
                fail(MXL_ERR_UNKNOWN, "ucx: listing the host's interfaces (getifaddrs): {}", std::strerror(errno));
            }
            return Addresses{list};
        }

        // The address of an interface entry as text, or nothing when it is not an IPv4 or IPv6 address of an interface
        // that is up. IPv6 link-local addresses keep no scope here: UCX picks the device by name, not by this text.
        std::optional<std::string> textOf(ifaddrs const& entry)
        {
            if (entry.ifa_addr == nullptr || (entry.ifa_flags & IFF_UP) == 0)
            {
                return std::nullopt;
            }
            char text[INET6_ADDRSTRLEN] = {};
            switch (entry.ifa_addr->sa_family)
            {
            case AF_INET:
                ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in const*>(entry.ifa_addr)->sin_addr, text, sizeof(text));
                return text;
            case AF_INET6:
                ::inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6 const*>(entry.ifa_addr)->sin6_addr, text, sizeof(text));
                return text;
            default:
                return std::nullopt;
            }
        }

        // Calls `visit(name, address text)` for every IPv4 and IPv6 address of an interface that is up.
        template <typename Visit>
        void forEachIpAddress(Visit&& visit)
        {
            auto const addresses = interfaceAddresses();
            for (auto const* entry = addresses.get(); entry != nullptr; entry = entry->ifa_next)
            {
                if (auto const text = textOf(*entry))
                {
                    visit(entry->ifa_name, *text);
                }
            }
        }

        // `node` in the form inet_ntop writes, so that "0:0::1" finds the interface listed as "::1".
        std::optional<TcpNode> parseNode(char const* node)
        {
            in_addr ipv4{};
            if (::inet_pton(AF_INET, node, &ipv4) == 1)
            {
                char text[INET_ADDRSTRLEN] = {};
                ::inet_ntop(AF_INET, &ipv4, text, sizeof(text));
                return TcpNode{text, {}, false};
            }
            in6_addr ipv6{};
            if (::inet_pton(AF_INET6, node, &ipv6) == 1)
            {
                char text[INET6_ADDRSTRLEN] = {};
                ::inet_ntop(AF_INET6, &ipv6, text, sizeof(text));
                return TcpNode{text, {}, true};
            }
            return std::nullopt;
        }

        std::string hostName()
        {
            char name[256] = {};
            ::gethostname(name, sizeof(name) - 1);
            return name;
        }

        bool wanted(mxlFabricsInterfaceConfig const* query, mxlFabricsProvider provider, std::string const& node)
        {
            if (query == nullptr)
            {
                return true;
            }
            if (query->provider != MXL_FABRICS_PROVIDER_ANY && query->provider != provider)
            {
                return false;
            }
            return query->address.node == nullptr || *query->address.node == '\0' || node == query->address.node;
        }

        void emitEntry(mxlFabricsProvider provider, std::string const& node, std::string const& attributes,
                       std::function<void(mxlFabricsInterfaceConfig const&)> const& emit)
        {
            mxlFabricsInterfaceConfig entry{};
            entry.provider = provider;
            entry.caps.flags = MXL_FABRICS_IFACE_CAP_REMOTE_WRITE;
            if (deviceMemoryIsHost() || ucxRegistersCudaMemory())
            {
                entry.caps.flags |= MXL_FABRICS_IFACE_CAP_HMEM;
            }
            entry.caps.maxMessageSize = std::numeric_limits<std::uint64_t>::max();
            entry.address.node = node.c_str();
            entry.address.service = "";
            entry.attr = attributes.c_str();
            emit(entry);
        }
    }

    void forEachUcxInterface(mxlFabricsInterfaceConfig const* query, std::function<void(mxlFabricsInterfaceConfig const&)> const& emit)
    {
        forEachIpAddress(
            [&](char const* device, std::string const& node)
            {
                if (wanted(query, MXL_FABRICS_PROVIDER_TCP, node))
                {
                    emitEntry(MXL_FABRICS_PROVIDER_TCP, node, fmt::format(R"({{"device":"{}","transports":"tcp"}})", device), emit);
                }
            });
        auto const host = hostName();
        if (wanted(query, MXL_FABRICS_PROVIDER_SHM, host))
        {
            emitEntry(MXL_FABRICS_PROVIDER_SHM, host, R"({"transports":"posix,sysv,cma"})", emit);
        }
    }

    TcpNode tcpNodeOf(char const* node)
    {
        auto parsed = parseNode(node);
        if (!parsed)
        {
            fail(MXL_ERR_INVALID_ARG, "ucx tcp: node \"{}\" is not an IPv4 or IPv6 address", node);
        }
        forEachIpAddress(
            [&](char const* name, std::string const& address)
            {
                if (parsed->device.empty() && address == parsed->address)
                {
                    parsed->device = name;
                }
            });
        if (parsed->device.empty())
        {
            fail(MXL_ERR_NO_FABRIC, "ucx tcp: no interface of this host that is up has the address {}", node);
        }
        return *parsed;
    }
}
