#include "fabrics/backends/ofi/InterfaceSelection.hpp"

#include "fabrics/backends/ofi/FabricError.hpp"
#include "fabrics/transport/DeviceMemoryKnob.hpp"

#include <rdma/fi_errno.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

namespace mxl::fabrics
{
    namespace
    {
        // tcp accepts any address in fi_getinfo and only fails when it binds; find out here and say so.
        void checkLocalAddress(char const* node, int family, void const* address)
        {
            sockaddr_storage storage{};
            socklen_t length = 0;
            if (family == AF_INET)
            {
                auto* ipv4 = reinterpret_cast<sockaddr_in*>(&storage);
                ipv4->sin_family = AF_INET;
                std::memcpy(&ipv4->sin_addr, address, sizeof(ipv4->sin_addr));
                length = sizeof(sockaddr_in);
            }
            else
            {
                auto* ipv6 = reinterpret_cast<sockaddr_in6*>(&storage);
                ipv6->sin6_family = AF_INET6;
                std::memcpy(&ipv6->sin6_addr, address, sizeof(ipv6->sin6_addr));
                length = sizeof(sockaddr_in6);
            }
            auto const probe = ::socket(family, SOCK_DGRAM, 0);
            if (probe < 0)
            {
                return;
            }
            auto const bound = ::bind(probe, reinterpret_cast<sockaddr*>(&storage), length) == 0 || errno != EADDRNOTAVAIL;
            ::close(probe);
            if (!bound)
            {
                fail(MXL_ERR_NO_FABRIC, "node {} is not an address of this host", node);
            }
        }

        // tcp/verbs take a literal IP address (no name resolution) and a numeric port.
        std::uint32_t checkIpAddress(char const* node, char const* service)
        {
            std::uint32_t format = FI_FORMAT_UNSPEC;
            if (node != nullptr)
            {
                std::uint8_t buffer[16];
                if (::inet_pton(AF_INET, node, buffer) == 1)
                {
                    format = FI_SOCKADDR_IN;
                    checkLocalAddress(node, AF_INET, buffer);
                }
                else if (::inet_pton(AF_INET6, node, buffer) == 1)
                {
                    format = FI_SOCKADDR_IN6;
                    checkLocalAddress(node, AF_INET6, buffer);
                }
                else
                {
                    fail(MXL_ERR_INVALID_ARG, "node \"{}\" is not an IPv4 or IPv6 address", node);
                }
            }
            if (service != nullptr && *service != '\0')
            {
                std::string_view const text{service};
                unsigned port = 0;
                auto const [end, error] = std::from_chars(text.data(), text.data() + text.size(), port);
                if (error != std::errc{} || end != text.data() + text.size() || port > 65535)
                {
                    fail(MXL_ERR_INVALID_ARG, "service \"{}\" is not a port number", service);
                }
            }
            return format;
        }

        // shm names its endpoint after the node: two endpoints of one name in a process fail fi_enable with EBUSY,
        // so initiators (whose name nobody needs) and unnamed targets get a name unique to this process.
        std::string shmName(mxlFabricsEndpointAddress const& address, Role role)
        {
            static std::atomic<unsigned> counter{0};
            if (role == Role::Target && address.node != nullptr && *address.node != '\0')
            {
                auto name = std::string{address.node};
                if (address.service != nullptr && *address.service != '\0')
                {
                    name += ':';
                    name += address.service;
                }
                return name;
            }
            return fmt::format("mxl-{}-{}-{}", role == Role::Target ? "target" : "initiator", ::getpid(), counter++);
        }

        Info makeHints(OfiProvider const& traits, Role role, std::uint32_t addressFormat, bool askOrder, Transport transport, bool hmem)
        {
            auto hints = Info::hints();
            hints->fabric_attr->prov_name = ::strdup(std::string{traits.name()}.c_str());
            hints->ep_attr->type = traits.endpointType;
            if (transport == Transport::Msg)
            {
                hints->caps = FI_MSG | (role == Role::Target ? FI_RECV : FI_SEND);
            }
            else
            {
                hints->caps = FI_RMA | (role == Role::Target ? FI_REMOTE_WRITE : FI_WRITE);
                if (traits.endpointType == FI_EP_MSG)
                {
                    // Receives for remote CQ data on providers that need them (FI_RX_CQ_DATA).
                    hints->caps |= FI_MSG;
                }
            }
            hints->mode = FI_RX_CQ_DATA;
            hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
            if (hmem)
            {
                // Device memory is registered with its interface (fi_mr_attr.iface); FI_MR_HMEM: we register every
                // buffer a transfer touches anyway.
                hints->caps |= FI_HMEM;
                hints->domain_attr->mr_mode |= FI_MR_HMEM;
            }
            hints->addr_format = addressFormat;
            if (askOrder)
            {
                hints->tx_attr->msg_order = transport == Transport::Msg ? FI_ORDER_SAS : FI_ORDER_RMA_WAW;
            }
            return hints;
        }

        bool rmaHidden() noexcept
        {
            auto const* knob = std::getenv("MXL_FABRICS_OFI_HIDE_RMA");
            return knob != nullptr && std::string_view{knob} == "1";
        }

        // The msg transport carries the immediate data as remote CQ data of a send, and sends headers and receives into
        // buffers it did not register (so no FI_MR_LOCAL).
        bool carries(Transport transport, fi_info const& entry) noexcept
        {
            return transport != Transport::Msg ||
                   (entry.domain_attr->cq_data_size >= sizeof(std::uint32_t) && (entry.domain_attr->mr_mode & FI_MR_LOCAL) == 0);
        }
    }

    SelectedInterface selectInterface(mxlFabricsInterfaceConfig const& config, Role role, Transport asked, bool deviceMemory)
    {
        auto const* traits = findOfiProvider(config.provider);
        if (traits == nullptr)
        {
            fail(MXL_ERR_NO_FABRIC, "libfabric serves no provider {}", static_cast<int>(config.provider));
        }
        auto const& address = config.address;
        auto const hasService = address.service != nullptr && *address.service != '\0';
        auto const hasNode = address.node != nullptr && *address.node != '\0';

        std::string node;
        char const* service = nullptr;
        std::uint32_t addressFormat = FI_FORMAT_UNSPEC;
        if (config.provider == MXL_FABRICS_PROVIDER_SHM)
        {
            node = shmName(address, role);
        }
        else
        {
            if (config.provider != MXL_FABRICS_PROVIDER_EFA)
            {
                addressFormat = checkIpAddress(hasNode ? address.node : nullptr, hasService ? address.service : nullptr);
            }
            node = hasNode ? address.node : "";
            service = hasService ? address.service : nullptr;
        }

        auto const rdm = traits->endpointType == FI_EP_RDM;
        auto const* nodeArgument = node.empty() ? nullptr : node.c_str();
        auto const flags = nodeArgument != nullptr ? std::uint64_t{FI_SOURCE} : 0;
        auto const describe = fmt::format("{} {} interface", traits->name(), role == Role::Target ? "target" : "initiator");

        auto const query = [&](bool askOrder, Transport transport, bool hmem) -> std::optional<Info>
        {
            auto const hints = makeHints(*traits, role, addressFormat, askOrder, transport, hmem);
            fi_info* list = nullptr;
            auto const code = fi_getinfo(apiVersion, nodeArgument, service, flags, hints.get(), &list);
            if (code == -FI_ENODATA)
            {
                return std::nullopt;
            }
            check(code, "fi_getinfo", describe);
            return Info::adopt(list);
        };
        // The first usable interface for `transport`, asking for ordered writes (RDM) and, if none grants it, without;
        // `hmem`: one that registers device memory.
        auto const find = [&](Transport transport, bool hmem) -> std::optional<SelectedInterface>
        {
            if (transport == Transport::Rma && rmaHidden())
            {
                return std::nullopt;
            }
            auto list = query(rdm, transport, hmem);
            auto ordered = true;
            if (rdm && !list)
            {
                ordered = false;
                list = query(false, transport, hmem);
            }
            auto const order = transport == Transport::Msg ? std::uint64_t{FI_ORDER_SAS} : std::uint64_t{FI_ORDER_RMA_WAW};
            for (auto* entry = list ? list->get() : nullptr; entry != nullptr; entry = entry->next)
            {
                if (isUsable(*traits, *entry, hmem) && carries(transport, *entry))
                {
                    return SelectedInterface{traits, Info::duplicate(entry), ordered || (entry->tx_attr->msg_order & order) != 0,
                                             TransportChoice{transport, "asked"}};
                }
            }
            return std::nullopt;
        };

        auto const missing = [&]
        {
            fail(MXL_ERR_NO_FABRIC, "no {} matches node \"{}\" service \"{}\": {}", describe, node, service != nullptr ? service : "",
                 traits->absentHint);
        };
        // The msg transport's target copies what it receives into place on the host, so device memory travels over rma.
        auto const selectDevice = [&]() -> SelectedInterface
        {
            std::string_view why = "was asked for transport msg, whose target places what it receives with host copies; device "
                                   "memory needs rma";
            if (asked != Transport::Msg)
            {
                auto const hmem = !deviceMemoryIsHost();
                if (auto rma = find(Transport::Rma, hmem))
                {
                    rma->transport = chooseTransport(asked, traits->name(), std::nullopt);
                    return std::move(*rma);
                }
                if (hmem && find(Transport::Rma, false))
                {
                    why = "does not register device memory (no FI_HMEM)";
                }
                else if (find(Transport::Msg, false))
                {
                    why = "has no endpoint with FI_RMA and remote CQ data, and device memory needs rma";
                }
                else
                {
                    missing();
                }
            }
            fail(MXL_ERR_UNSUPPORTED_OPERATION, "{} for device memory: provider {} {}", describe, traits->name(), why);
        };
        if (deviceMemory)
        {
            return selectDevice();
        }
        if (asked != Transport::Msg)
        {
            if (auto rma = find(Transport::Rma, false))
            {
                rma->transport = chooseTransport(asked, traits->name(), std::nullopt);
                return std::move(*rma);
            }
        }
        // RMA is missing where sends are not: the provider lacks RMA (not the node or service), and auto falls back.
        auto msg = find(Transport::Msg, false);
        if (!msg)
        {
            missing();
        }
        msg->transport =
            chooseTransport(asked, traits->name(),
                            asked == Transport::Msg ? std::nullopt : std::optional<std::string>{"endpoint with FI_RMA and remote CQ data"});
        return std::move(*msg);
    }
}
