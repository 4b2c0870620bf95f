#include "NetworkNamespaces.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
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
            auto const command = fmt::format("{} {} >/dev/null 2>&1", ipCommand(), arguments);
            auto const status = std::system(command.c_str());
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
        if (!wired || !carrierUp(namespaces._first, veth + "0") || !carrierUp(namespaces._second, veth + "1"))
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
