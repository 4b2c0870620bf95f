#include "fabrics/backends/ofi/OfiInterfaces.hpp"

#include "common/Status.hpp"
#include "fabrics/backends/ofi/Info.hpp"
#include "fabrics/backends/ofi/OfiProvider.hpp"
#include "fabrics/transport/DeviceMemoryKnob.hpp"

#include <nlohmann/json.hpp>

#include <rdma/fi_errno.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <unistd.h>

#include <set>
#include <string>
#include <utility>

namespace mxl::fabrics
{
    namespace
    {
        std::string hostName()
        {
            char name[256] = {};
            ::gethostname(name, sizeof(name) - 1);
            return name;
        }

        // The node an interface is named by: its IP address (tcp, verbs), the host name (shm), or the GID (efa).
        std::string nodeOf(OfiProvider const& traits, fi_info const& info)
        {
            char text[INET6_ADDRSTRLEN] = {};
            if (info.src_addr != nullptr && info.addr_format == FI_SOCKADDR_IN)
            {
                ::inet_ntop(AF_INET, &static_cast<sockaddr_in const*>(info.src_addr)->sin_addr, text, sizeof(text));
                return text;
            }
            if (info.src_addr != nullptr && info.addr_format == FI_SOCKADDR_IN6)
            {
                ::inet_ntop(AF_INET6, &static_cast<sockaddr_in6 const*>(info.src_addr)->sin6_addr, text, sizeof(text));
                return text;
            }
            if (traits.provider == MXL_FABRICS_PROVIDER_EFA && info.src_addr != nullptr && info.src_addrlen >= 16)
            {
                ::inet_ntop(AF_INET6, info.src_addr, text, sizeof(text));
                return text;
            }
            return hostName();
        }

        // `hmem`: the provider lists this interface a second time with FI_HMEM.
        std::uint64_t capsOf(OfiProvider const& traits, fi_info const& info, bool hmem)
        {
            std::uint64_t flags = 0;
            if (hmem || deviceMemoryIsHost())
            {
                flags |= MXL_FABRICS_IFACE_CAP_HMEM;
            }
            if ((info.caps & (FI_SEND | FI_RECV | FI_MSG)) != 0)
            {
                flags |= MXL_FABRICS_IFACE_CAP_SEND_RECEIVE;
            }
            if ((info.caps & (FI_REMOTE_WRITE | FI_WRITE | FI_RMA)) != 0)
            {
                flags |= MXL_FABRICS_IFACE_CAP_REMOTE_WRITE;
            }
            // efa in libfabric < 2.4 has no blocking completion queue.
            if (traits.provider != MXL_FABRICS_PROVIDER_EFA)
            {
                flags |= MXL_FABRICS_IFACE_CAP_BLOCKING_OPERATIONS;
            }
            return flags;
        }

        std::string attributesOf(fi_info const& info, bool hmem)
        {
            nlohmann::json attributes = nlohmann::json::object();
            auto const text = [](void const* value, fi_type type) -> std::string
            {
                auto const* printed = fi_tostr(value, type);
                return printed != nullptr ? printed : "";
            };
            attributes["ep_addr_format"] = text(&info.addr_format, FI_TYPE_ADDR_FORMAT);
            attributes["ep_protocol"] = text(&info.ep_attr->protocol, FI_TYPE_PROTOCOL);
            attributes["ep_type"] = text(&info.ep_attr->type, FI_TYPE_EP_TYPE);
            attributes["fi_domain_name"] = info.domain_attr->name != nullptr ? info.domain_attr->name : "";
            attributes["fi_domain_cq_cnt"] = static_cast<double>(info.domain_attr->cq_cnt);
            attributes["fi_domain_ep_cnt"] = static_cast<double>(info.domain_attr->ep_cnt);
            attributes["fi_domain_mr_cnt"] = static_cast<double>(info.domain_attr->mr_cnt);
            // The provider's claim to register heterogeneous memory; which kinds (FI_HMEM_CUDA, ...) its build supports is
            // only known by registering some.
            attributes["fi_hmem"] = hmem;
            if (info.nic != nullptr && info.nic->device_attr != nullptr)
            {
                auto const* device = info.nic->device_attr;
                auto const put = [&](char const* key, char const* value)
                {
                    if (value != nullptr)
                    {
                        attributes[key] = value;
                    }
                };
                put("device_name", device->name);
                put("device_id", device->device_id);
                put("device_vendor_id", device->vendor_id);
                put("device_version", device->device_version);
                put("device_driver", device->driver);
                put("device_firmware", device->firmware);
            }
            if (info.nic != nullptr && info.nic->link_attr != nullptr)
            {
                auto const* link = info.nic->link_attr;
                attributes["link_state"] = link->state == FI_LINK_UP ? "up" : link->state == FI_LINK_DOWN ? "down" : "unknown";
                if (link->speed != 0)
                {
                    attributes["link_speed"] = static_cast<double>(link->speed);
                }
                if (link->address != nullptr)
                {
                    attributes["link_address"] = link->address;
                }
                if (link->network_type != nullptr)
                {
                    attributes["link_type"] = link->network_type;
                }
            }
            if (info.nic != nullptr && info.nic->bus_attr != nullptr && info.nic->bus_attr->bus_type == FI_BUS_PCI)
            {
                auto const& pci = info.nic->bus_attr->attr.pci;
                attributes["pci_domain_id"] = static_cast<double>(pci.domain_id);
                attributes["pci_bus_id"] = static_cast<double>(pci.bus_id);
                attributes["pci_device_id"] = static_cast<double>(pci.device_id);
                attributes["pci_function_id"] = static_cast<double>(pci.function_id);
            }
            if (!attributes.contains("device_name"))
            {
                // tcp reports no NIC attributes: its domain is the netdev.
                attributes["device_name"] = attributes["fi_domain_name"];
            }
            return attributes.dump();
        }
    }

    void forEachOfiInterface(mxlFabricsInterfaceConfig const* query, std::function<void(mxlFabricsInterfaceConfig const&)> const& emit)
    {
        fi_info* all = nullptr;
        auto const code = fi_getinfo(apiVersion, nullptr, nullptr, 0, nullptr, &all);
        if (code == -FI_ENODATA)
        {
            return;
        }
        auto const infos = Info::adopt(all);
        if (code < 0)
        {
            fail(MXL_ERR_UNKNOWN, "fi_getinfo (interface discovery) failed: {}", fi_strerror(-code));
        }

        auto const wantedNode = query != nullptr && query->address.node != nullptr ? std::string{query->address.node} : std::string{};
        auto const traitsOf = [](fi_info const& info) {
            return info.fabric_attr != nullptr && info.fabric_attr->prov_name != nullptr ? findOfiProvider(info.fabric_attr->prov_name)
                                                                                         : nullptr;
        };
        // A provider that registers device memory lists an interface twice, the second time with FI_HMEM (and
        // FI_MR_HMEM): the interface is the one without, its capability the other's.
        std::set<std::pair<mxlFabricsProvider, std::string>> withHmem;
        for (auto const* info = infos.get(); info != nullptr; info = info->next)
        {
            if (auto const* traits = traitsOf(*info); traits != nullptr && isUsable(*traits, *info, true))
            {
                withHmem.emplace(traits->provider, nodeOf(*traits, *info));
            }
        }
        std::set<std::pair<mxlFabricsProvider, std::string>> seen;
        for (auto const* info = infos.get(); info != nullptr; info = info->next)
        {
            auto const* traits = traitsOf(*info);
            if (traits == nullptr || !isUsable(*traits, *info, false))
            {
                continue;
            }
            if (query != nullptr && query->provider != MXL_FABRICS_PROVIDER_ANY && query->provider != traits->provider)
            {
                continue;
            }
            auto const node = nodeOf(*traits, *info);
            if ((!wantedNode.empty() && node != wantedNode) || !seen.emplace(traits->provider, node).second)
            {
                continue;
            }
            auto const hmem = withHmem.contains({traits->provider, node});
            auto const attributes = attributesOf(*info, hmem);
            mxlFabricsInterfaceConfig entry{};
            entry.version = MXL_FABRICS_API_VERSION;
            entry.provider = traits->provider;
            entry.caps.version = MXL_FABRICS_API_VERSION;
            entry.caps.flags = capsOf(*traits, *info, hmem);
            entry.caps.maxMessageSize = info->ep_attr->max_msg_size;
            entry.address.node = node.c_str();
            entry.address.service = "";
            entry.attr = attributes.c_str();
            emit(entry);
        }
    }
}
