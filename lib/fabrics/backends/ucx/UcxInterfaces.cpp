#include "fabrics/backends/ucx/UcxInterfaces.hpp"

#include "common/Status.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cstring>
#include <limits>
#include <memory>
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

        // Calls `visit(name, dotted address)` for every IPv4 address of an interface that is up.
        template <typename Visit>
        void forEachIpv4(Visit&& visit)
        {
            auto const addresses = interfaceAddresses();
            for (auto const* entry = addresses.get(); entry != nullptr; entry = entry->ifa_next)
            {
                if (entry->ifa_addr == nullptr || entry->ifa_addr->sa_family != AF_INET || (entry->ifa_flags & IFF_UP) == 0)
                {
                    continue;
                }
                char text[INET_ADDRSTRLEN] = {};
                ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in const*>(entry->ifa_addr)->sin_addr, text, sizeof(text));
                visit(entry->ifa_name, text);
            }
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
            entry.caps.maxMessageSize = std::numeric_limits<std::uint64_t>::max();
            entry.address.node = node.c_str();
            entry.address.service = "";
            entry.attr = attributes.c_str();
            emit(entry);
        }
    }

    void forEachUcxInterface(mxlFabricsInterfaceConfig const* query, std::function<void(mxlFabricsInterfaceConfig const&)> const& emit)
    {
        forEachIpv4(
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

    std::string deviceOwning(char const* node)
    {
        in_addr wantedAddress{};
        if (::inet_pton(AF_INET, node, &wantedAddress) != 1)
        {
            fail(MXL_ERR_INVALID_ARG, "ucx tcp: node \"{}\" is not an IPv4 address", node);
        }
        std::string device;
        forEachIpv4(
            [&](char const* name, std::string const& address)
            {
                if (device.empty() && address == node)
                {
                    device = name;
                }
            });
        if (device.empty())
        {
            fail(MXL_ERR_NO_FABRIC, "ucx tcp: no interface of this host that is up has the address {}", node);
        }
        return device;
    }
}
