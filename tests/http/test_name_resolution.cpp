// A host name whose name server never answers: the HTTP client gives up at its request's deadline, as it does with a
// silent peer, naming the host, and lookups left running behind such requests are bounded. The name server is a UDP
// socket of the test's own that reads and never answers, on the loopback of a network namespace of a child process,
// named by a resolv.conf bound over /etc/resolv.conf in that child's own mount namespace: nothing leaves the machine
// and the test's own namespaces are untouched.
#include "Skip.hpp"

#include <HttpClient.hpp>
#include <common/UniqueFd.hpp>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <arpa/inet.h>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <net/if.h>
#include <netinet/in.h>
#include <optional>
#include <poll.h>
#include <sched.h>
#include <string>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace std::chrono_literals;

namespace
{
    // Each glibc lookup waits this long for the silent server before it gives up: far past every deadline below.
    constexpr auto resolvConf = "nameserver 127.0.0.1\noptions timeout:20 attempts:1\n";

    struct Attempt
    {
        std::string failure;
        long long elapsedMs = 0;
    };

    // Where glibc asks another service for hosts (systemd-resolved through nss-resolve, or nscd) rather than the name
    // servers of /etc/resolv.conf, the silent server is never asked.
    std::optional<std::string> resolverNotFromResolvConf()
    {
        if (std::filesystem::exists("/var/run/nscd/socket"))
        {
            return std::string{"nscd answers host lookups here (/var/run/nscd/socket), not the name servers of /etc/resolv.conf"};
        }
        std::ifstream nsswitch{"/etc/nsswitch.conf"};
        for (std::string line; std::getline(nsswitch, line);)
        {
            if (line.rfind("hosts:", 0) == 0 && line.find("resolve") != std::string::npos)
            {
                return "/etc/nsswitch.conf asks systemd-resolved for hosts (" + line + ")";
            }
        }
        return std::nullopt;
    }

    // The child's report: a reason to skip, or one attempt a line ("<elapsed ms> <failure>").
    void report(int fd, std::string const& text)
    {
        auto const* data = text.data();
        auto left = text.size();
        while (left > 0)
        {
            auto const written = ::write(fd, data, left);
            if (written <= 0)
            {
                return;
            }
            data += written;
            left -= static_cast<std::size_t>(written);
        }
    }

    // In the child: its own mount and network namespaces, with loopback up, a silent name server on it, and a
    // resolv.conf that names only that server. A reason where this machine does not allow it.
    std::string isolateWithSilentNameServer(std::optional<mxl::UniqueFd>& server)
    {
        if (::unshare(CLONE_NEWNS | CLONE_NEWNET) != 0)
        {
            return fmt::format("unshare(CLONE_NEWNS | CLONE_NEWNET): {} (needs root)", std::strerror(errno));
        }
        if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
        {
            return fmt::format("making mounts private: {}", std::strerror(errno));
        }
        char path[] = "/tmp/mxl-resolv-XXXXXX";
        mxl::UniqueFd const file{::mkstemp(path)};
        if (file.get() < 0)
        {
            return fmt::format("mkstemp: {}", std::strerror(errno));
        }
        report(file.get(), resolvConf);
        auto const bound = ::mount(path, "/etc/resolv.conf", nullptr, MS_BIND, nullptr);
        auto const bindError = errno;
        ::unlink(path);
        if (bound != 0)
        {
            return fmt::format("binding a resolv.conf over /etc/resolv.conf: {}", std::strerror(bindError));
        }
        mxl::UniqueFd const control{::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)};
        ifreq loopback{};
        std::strncpy(loopback.ifr_name, "lo", IFNAMSIZ - 1);
        if (::ioctl(control.get(), SIOCGIFFLAGS, &loopback) != 0)
        {
            return fmt::format("reading loopback's flags: {}", std::strerror(errno));
        }
        loopback.ifr_flags = static_cast<short>(loopback.ifr_flags | IFF_UP);
        if (::ioctl(control.get(), SIOCSIFFLAGS, &loopback) != 0)
        {
            return fmt::format("bringing loopback up: {}", std::strerror(errno));
        }
        server.emplace(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(53);
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (::bind(server->get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0)
        {
            return fmt::format("binding the silent name server to 127.0.0.1:53: {}", std::strerror(errno));
        }
        return {};
    }

    Attempt attempt(std::string const& method, std::string const& url, std::chrono::milliseconds timeout)
    {
        auto const started = std::chrono::steady_clock::now();
        auto const outcome = mxl::httpExchange(method, url, "", timeout);
        auto const elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
        auto const* failure = std::get_if<mxl::HttpFailure>(&outcome);
        return {failure != nullptr ? failure->reason : "answered", elapsed.count()};
    }

    // Runs in the child and never returns: the lookups it left running are not waited for.
    [[noreturn]] void runChild(int fd)
    {
        std::optional<mxl::UniqueFd> server;
        if (auto const reason = isolateWithSilentNameServer(server); !reason.empty())
        {
            report(fd, "skip " + reason + "\n");
            ::_exit(0);
        }
        std::vector<Attempt> attempts;
        attempts.push_back(attempt("GET", "http://tickets.studio-a.example:8080/ticket", 1000ms));
        attempts.push_back(attempt("POST", "https://registry.studio-a.example/x-nmos/registration/v1.3/resource", 500ms));
        // Fourteen more names leave sixteen lookups waiting for the server; a seventeenth name is refused at once, while
        // a name whose lookup still waits is asked again by joining that lookup.
        for (int i = 0; i < 15; ++i)
        {
            attempts.push_back(attempt("GET", fmt::format("http://flow-{}.studio-a.example/", i), 50ms));
        }
        attempts.push_back(attempt("GET", "http://tickets.studio-a.example:8080/ticket", 300ms));
        std::string text;
        for (auto const& each : attempts)
        {
            text += fmt::format("{} {}\n", each.elapsedMs, each.failure);
        }
        report(fd, text);
        ::_exit(0);
    }

    // The child's report, read until it closes its end, or for at most a minute.
    std::string readReport(int fd)
    {
        std::string text;
        auto const deadline = std::chrono::steady_clock::now() + 60s;
        char chunk[4096];
        while (std::chrono::steady_clock::now() < deadline)
        {
            pollfd ready{fd, POLLIN, 0};
            if (::poll(&ready, 1, 1000) <= 0)
            {
                continue;
            }
            auto const n = ::read(fd, chunk, sizeof chunk);
            if (n <= 0)
            {
                break;
            }
            text.append(chunk, static_cast<std::size_t>(n));
        }
        return text;
    }

    std::vector<Attempt> parse(std::string const& text)
    {
        std::vector<Attempt> attempts;
        std::size_t start = 0;
        for (auto end = text.find('\n'); end != std::string::npos; start = end + 1, end = text.find('\n', start))
        {
            auto const line = text.substr(start, end - start);
            auto const space = line.find(' ');
            REQUIRE(space != std::string::npos);
            attempts.push_back({line.substr(space + 1), std::stoll(line.substr(0, space))});
        }
        return attempts;
    }
}

TEST_CASE("a host whose name server never answers fails at the request's deadline, naming the host, and lookups left waiting are "
          "bounded")
{
    MXL_SKIP_IF(resolverNotFromResolvConf());
    int pipeFds[2];
    REQUIRE(::pipe2(pipeFds, O_CLOEXEC) == 0);
    mxl::UniqueFd const readEnd{pipeFds[0]};
    auto const child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0)
    {
        runChild(pipeFds[1]);
    }
    // The report ends when the child's end closes.
    ::close(pipeFds[1]);
    auto const text = readReport(readEnd.get());
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    if (text.rfind("skip ", 0) == 0)
    {
        MXL_SKIP(text.substr(5).c_str());
    }
    auto const attempts = parse(text);
    REQUIRE(attempts.size() == 18);

    auto const unanswered = [](std::string const& host)
    { return fmt::format("cannot resolve '{}': the name service gave no answer before the request's deadline", host); };
    CHECK(attempts[0].failure == unanswered("tickets.studio-a.example"));
    CHECK(attempts[1].failure == unanswered("registry.studio-a.example"));
    // The deadline holds (glibc alone would wait 20 s); a loaded machine may add a scheduler slice or two.
    CHECK(attempts[0].elapsedMs >= 950);
    CHECK(attempts[0].elapsedMs < 1000 + 2000);
    CHECK(attempts[1].elapsedMs >= 450);
    CHECK(attempts[1].elapsedMs < 500 + 2000);
    for (std::size_t i = 2; i < 16; ++i)
    {
        INFO("attempt ", i);
        CHECK(attempts[i].failure == unanswered(fmt::format("flow-{}.studio-a.example", i - 2)));
    }
    // Sixteen lookups still wait: the seventeenth is not started, but the first host asked again joins its own.
    CHECK(attempts[16].failure == "cannot resolve 'flow-14.studio-a.example': lookups of 16 other names still wait for the name service");
    CHECK(attempts[16].elapsedMs < 1000);
    CHECK(attempts[17].failure == unanswered("tickets.studio-a.example"));
    CHECK(attempts[17].elapsedMs >= 250);
}
