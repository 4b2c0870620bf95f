#include "NetworkNamespaces.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

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
    }

    std::unique_ptr<NetworkNamespaces> NetworkNamespaces::create(std::string& whyNot)
    {
        if (ipCommand().empty())
        {
            whyNot = "the ip command (iproute2) is not installed";
            return nullptr;
        }
        // Names unique to this process: test cases run in parallel.
        std::unique_ptr<NetworkNamespaces> namespaces{new NetworkNamespaces{fmt::format("mxlns{}", ::getpid())}};
        auto const& tag = namespaces->_tag;
        if (!ip(fmt::format("netns add {}a", tag)) || !ip(fmt::format("netns add {}b", tag)))
        {
            whyNot = "cannot create network namespaces (ip netns add failed: needs root or CAP_SYS_ADMIN)";
            return nullptr;
        }
        bool const wired = ip(fmt::format("link add {0}v0 netns {0}a type veth peer name {0}v1 netns {0}b", tag)) &&
                           ip(fmt::format("-n {0}a addr add {1}/24 dev {0}v0", tag, firstAddress)) &&
                           ip(fmt::format("-n {0}b addr add {1}/24 dev {0}v1", tag, secondAddress)) &&
                           ip(fmt::format("-n {0}a link set {0}v0 up", tag)) && ip(fmt::format("-n {0}b link set {0}v1 up", tag)) &&
                           ip(fmt::format("-n {0}a link set lo up", tag)) && ip(fmt::format("-n {0}b link set lo up", tag));
        if (!wired || !carrierUp(tag + "a", tag + "v0") || !carrierUp(tag + "b", tag + "v1"))
        {
            whyNot = "cannot join the network namespaces with a veth pair (ip link add ... type veth failed)";
            return nullptr;
        }
        return namespaces;
    }

    NetworkNamespaces::NetworkNamespaces(std::string tag)
        : _tag{std::move(tag)}
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

    bool NetworkNamespaces::setLink(bool up) const
    {
        if (!ip(fmt::format("-n {0}a link set {0}v0 {1}", _tag, up ? "up" : "down")))
        {
            return false;
        }
        return !up || (carrierUp(_tag + "a", _tag + "v0") && carrierUp(_tag + "b", _tag + "v1"));
    }
}
