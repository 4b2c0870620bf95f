#include "TwoHosts.hpp"

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
        constexpr char const* ip = "/usr/sbin/ip";

        bool run(std::string const& arguments)
        {
            auto const status = std::system(fmt::format("{} {} >/dev/null 2>&1", ip, arguments).c_str());
            return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
        }

        // libfabric's tcp provider ignores an interface without carrier, and a veth end has none for a moment after
        // "up": wait for LOWER_UP (at most 3 s).
        bool carrier(std::string const& netns, std::string const& device)
        {
            auto const command = fmt::format("{} -n {} -o link show dev {} 2>/dev/null", ip, netns, device);
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

    std::unique_ptr<TwoHosts> TwoHosts::create(std::string& whyNot)
    {
        if (::access(ip, X_OK) != 0)
        {
            whyNot = "the ip command (iproute2) is not installed";
            return nullptr;
        }
        // Unique per process: test cases run in parallel.
        std::unique_ptr<TwoHosts> hosts{new TwoHosts{fmt::format("mxlsv{}", ::getpid())}};
        auto const& tag = hosts->_tag;
        if (!run(fmt::format("netns add {}t", tag)) || !run(fmt::format("netns add {}i", tag)))
        {
            whyNot = "cannot create network namespaces (ip netns add failed: needs root or CAP_SYS_ADMIN)";
            return nullptr;
        }
        bool const wired = run(fmt::format("link add {0}v0 netns {0}t type veth peer name {0}v1 netns {0}i", tag)) &&
                           run(fmt::format("-n {0}t addr add 198.51.100.1/24 dev {0}v0", tag)) &&
                           run(fmt::format("-n {0}i addr add 198.51.100.2/24 dev {0}v1", tag)) &&
                           run(fmt::format("-n {0}t link set {0}v0 up", tag)) && run(fmt::format("-n {0}i link set {0}v1 up", tag)) &&
                           run(fmt::format("-n {0}t link set lo up", tag)) && run(fmt::format("-n {0}i link set lo up", tag));
        if (!wired || !carrier(tag + "t", tag + "v0") || !carrier(tag + "i", tag + "v1"))
        {
            whyNot = "cannot join the network namespaces with a veth pair";
            return nullptr;
        }
        return hosts;
    }

    TwoHosts::TwoHosts(std::string tag)
        : _tag{std::move(tag)}
    {
    }

    TwoHosts::~TwoHosts()
    {
        // Deleting a namespace removes its veth end, and with it the peer. Deleting one that was never made is harmless.
        run(fmt::format("netns del {}t", _tag));
        run(fmt::format("netns del {}i", _tag));
    }

    std::vector<std::string> TwoHosts::onTarget() const
    {
        return {ip, "netns", "exec", _tag + "t"};
    }

    std::vector<std::string> TwoHosts::onInitiator() const
    {
        return {ip, "netns", "exec", _tag + "i"};
    }

    bool TwoHosts::setLink(bool up) const
    {
        if (!run(fmt::format("-n {0}t link set {0}v0 {1}", _tag, up ? "up" : "down")))
        {
            return false;
        }
        return !up || (carrier(_tag + "t", _tag + "v0") && carrier(_tag + "i", _tag + "v1"));
    }
}
