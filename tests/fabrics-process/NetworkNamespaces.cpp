#include "NetworkNamespaces.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <sys/wait.h>
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
            auto const command = fmt::format("{} {} >/dev/null 2>&1", ipCommand(), arguments);
            auto const status = std::system(command.c_str());
            return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
        }
    }

    std::optional<NetworkNamespaces> NetworkNamespaces::create(std::string& whyNot)
    {
        if (ipCommand().empty())
        {
            whyNot = "the ip command (iproute2) is not installed";
            return std::nullopt;
        }
        // Names unique to this process: tests may run in parallel.
        auto const tag = fmt::format("mxlfp{}", ::getpid());
        NetworkNamespaces namespaces{tag + "a", tag + "b"};
        if (!ip("netns add " + namespaces._first) || !ip("netns add " + namespaces._second))
        {
            whyNot = "cannot create network namespaces (ip netns add failed: needs root or CAP_SYS_ADMIN)";
            return std::nullopt;
        }
        auto const veth = tag + "v";
        bool const wired =
            ip(fmt::format("link add {0}0 netns {1} type veth peer name {0}1 netns {2}", veth, namespaces._first, namespaces._second)) &&
            ip(fmt::format("-n {} addr add {}/24 dev {}0", namespaces._first, firstAddress, veth)) &&
            ip(fmt::format("-n {} addr add {}/24 dev {}1", namespaces._second, secondAddress, veth)) &&
            ip(fmt::format("-n {} link set {}0 up", namespaces._first, veth)) &&
            ip(fmt::format("-n {} link set {}1 up", namespaces._second, veth)) &&
            ip(fmt::format("-n {} link set lo up", namespaces._first)) && ip(fmt::format("-n {} link set lo up", namespaces._second));
        if (!wired)
        {
            whyNot = "cannot connect the network namespaces with a veth pair (ip link add ... type veth failed)";
            return std::nullopt;
        }
        return namespaces;
    }

    NetworkNamespaces::NetworkNamespaces(std::string first, std::string second)
        : _first{std::move(first)}
        , _second{std::move(second)}
    {
    }

    NetworkNamespaces::NetworkNamespaces(NetworkNamespaces&& other) noexcept
        : _first{std::exchange(other._first, {})}
        , _second{std::exchange(other._second, {})}
    {
    }

    NetworkNamespaces::~NetworkNamespaces()
    {
        // Deleting a namespace also removes its end of the veth pair, and with it the other end.
        for (auto const* name : {&_first, &_second})
        {
            if (!name->empty())
            {
                ip("netns del " + *name);
            }
        }
    }

    std::vector<std::string> NetworkNamespaces::inFirst() const
    {
        return {ipCommand(), "netns", "exec", _first};
    }

    std::vector<std::string> NetworkNamespaces::inSecond() const
    {
        return {ipCommand(), "netns", "exec", _second};
    }
}
