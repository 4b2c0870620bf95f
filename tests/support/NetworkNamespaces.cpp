#include "NetworkNamespaces.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <utility>

namespace mxl::test
{
    namespace
    {
        std::string ipCommand()
        {
            for (char const* path : {"/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"})
            {
                if (::access(path, X_OK) == 0)
                {
                    return path;
                }
            }
            return {};
        }

        // Runs `ip <arguments>` quietly; true on success.
        bool ip(std::string const& arguments)
        {
            auto const status = std::system(fmt::format("{} {} >/dev/null 2>&1", ipCommand(), arguments).c_str());
            return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
        }

        // A veth end reports NO-CARRIER for a moment after both ends are up, and libfabric's tcp provider does not list
        // an interface without carrier: wait for it (at most 3 s).
        bool carrierUp(std::string const& netns, std::string const& device)
        {
            auto const command = fmt::format("{} -n {} -o link show dev {} 2>/dev/null", ipCommand(), netns, device);
            for (int attempt = 0; attempt < 300; ++attempt)
            {
                std::string output;
                if (auto* pipe = ::popen(command.c_str(), "r"); pipe != nullptr)
                {
                    char buffer[512];
                    while (std::fgets(buffer, sizeof buffer, pipe) != nullptr)
                    {
                        output += buffer;
                    }
                    ::pclose(pipe);
                }
                if (output.find("LOWER_UP") != std::string::npos && output.find("NO-CARRIER") == std::string::npos)
                {
                    return true;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds{10});
            }
            return false;
        }

        // Link A keeps the device names it always had ("<tag>v0", "<tag>v1"); link B's are "<tag>w0", "<tag>w1".
        std::string deviceName(std::string const& tag, int link)
        {
            return tag + (link == 0 ? "v" : "w");
        }

        // The policy routing table of link `link` in the first namespace.
        int routingTable(int link)
        {
            return 101 + link;
        }

        // The route of link `link`'s table; taking the link down deletes it, so bringing it up adds it again.
        bool addOwnLinkRoute(std::string const& tag, int link)
        {
            return ip(
                fmt::format("-n {0}a route replace 198.51.100.0/24 dev {1}0 table {2}", tag, deviceName(tag, link), routingTable(link)));
        }

        // With two links the first namespace answers from each address over that address's own link (policy routing,
        // as a host with two NICs is set up): the initiator's tcp provider may bind its connections to either link's
        // address, and the target's replies must not then cross, and depend on, the other link.
        bool answerOverOwnLink(std::string const& tag, int link, char const* address)
        {
            return ip(fmt::format("-n {0}a rule add from {1} table {2}", tag, address, routingTable(link))) && addOwnLinkRoute(tag, link);
        }
    }

    std::unique_ptr<NetworkNamespaces> NetworkNamespaces::create(std::string& whyNot, int links)
    {
        if (ipCommand().empty())
        {
            whyNot = "the ip command (iproute2) is not installed";
            return nullptr;
        }
        // Names unique to this process: test cases run in parallel.
        std::unique_ptr<NetworkNamespaces> namespaces{new NetworkNamespaces{fmt::format("mxlns{}", ::getpid()), links}};
        auto const& tag = namespaces->_tag;
        if (!ip(fmt::format("netns add {}a", tag)) || !ip(fmt::format("netns add {}b", tag)))
        {
            whyNot = "cannot create network namespaces (ip netns add failed: needs root or CAP_SYS_ADMIN)";
            return nullptr;
        }
        for (int link = 0; link < links; ++link)
        {
            auto const [first, second] = link == 0 ? std::pair{firstAddress, secondAddress} : std::pair{firstAddressB, secondAddressB};
            auto const name = deviceName(tag, link);
            bool const wired = ip(fmt::format("link add {0}0 netns {1}a type veth peer name {0}1 netns {1}b", name, tag)) &&
                               ip(fmt::format("-n {0}a addr add {1}/25 dev {2}0", tag, first, name)) &&
                               ip(fmt::format("-n {0}b addr add {1}/25 dev {2}1", tag, second, name)) &&
                               ip(fmt::format("-n {0}a link set {1}0 up", tag, name)) &&
                               ip(fmt::format("-n {0}b link set {1}1 up", tag, name));
            if (!wired || !carrierUp(tag + "a", name + "0") || !carrierUp(tag + "b", name + "1"))
            {
                whyNot = "cannot join the network namespaces with a veth pair (ip link add ... type veth failed)";
                return nullptr;
            }
            if (links > 1 && !answerOverOwnLink(tag, link, first))
            {
                whyNot = "cannot set up policy routing in the first network namespace (ip rule add failed)";
                return nullptr;
            }
        }
        if (!ip(fmt::format("-n {0}a link set lo up", tag)) || !ip(fmt::format("-n {0}b link set lo up", tag)))
        {
            whyNot = "cannot bring up the network namespaces' loopback (ip link set lo up failed)";
            return nullptr;
        }
        return namespaces;
    }

    NetworkNamespaces::NetworkNamespaces(std::string tag, int links)
        : _tag{std::move(tag)}
        , _links{links}
    {
    }

    NetworkNamespaces::~NetworkNamespaces()
    {
        // Deleting a namespace also removes its end of the veth pair, and with it the other end; deleting one that was
        // never made is harmless.
        ip(fmt::format("netns del {}a", _tag));
        ip(fmt::format("netns del {}b", _tag));
    }

    std::vector<std::string> NetworkNamespaces::inFirst() const
    {
        return {ipCommand(), "netns", "exec", _tag + "a"};
    }

    std::vector<std::string> NetworkNamespaces::inSecond() const
    {
        return {ipCommand(), "netns", "exec", _tag + "b"};
    }

    bool NetworkNamespaces::setLink(bool up, Link link) const
    {
        auto const number = link == Link::A ? 0 : 1;
        auto const name = deviceName(_tag, number);
        if (!ip(fmt::format("-n {0}a link set {1}0 {2}", _tag, name, up ? "up" : "down")) ||
            (up && _links > 1 && !addOwnLinkRoute(_tag, number)))
        {
            return false;
        }
        return !up || (carrierUp(_tag + "a", name + "0") && carrierUp(_tag + "b", name + "1"));
    }
}
