#include "EtcdServer.hpp"

#include "FreePort.hpp"

#include <HttpClient.hpp>
#include <common/Base64.hpp>

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <array>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace mxl::test
{
    namespace
    {
        constexpr char const* etcdProgram = "/usr/bin/etcd";
    }

    std::optional<std::string> EtcdServer::unavailable()
    {
        if (::access(etcdProgram, X_OK) != 0)
        {
            return fmt::format("{} is not installed (Debian package etcd-server; scripts/install-deps.sh installs it)", etcdProgram);
        }
        return std::nullopt;
    }

    EtcdServer::EtcdServer(std::optional<Secured> secured)
        : _secured{std::move(secured)}
    {
        std::array<char, 32> pattern{"/tmp/mxl-etcd-XXXXXX"};
        if (::mkdtemp(pattern.data()) == nullptr)
        {
            throw std::runtime_error{"cannot create a directory for etcd"};
        }
        _directory = pattern.data();
        _clientPort = freeLoopbackPort();
        _peerPort = freeLoopbackPort();
        start();
    }

    EtcdServer::~EtcdServer()
    {
        kill();
        std::error_code error;
        std::filesystem::remove_all(_directory, error);
    }

    std::string EtcdServer::endpoint() const
    {
        return fmt::format("127.0.0.1:{}", _clientPort);
    }

    void EtcdServer::start(bool forgetData)
    {
        auto const data = _directory / "data";
        if (forgetData)
        {
            std::filesystem::remove_all(data);
        }
        auto const logPath = _directory / "etcd.log";
        std::filesystem::remove(logPath);
        auto const client = fmt::format("{}://127.0.0.1:{}", _secured ? "https" : "http", _clientPort);
        auto const peer = fmt::format("http://127.0.0.1:{}", _peerPort);
        std::vector<std::string> arguments{etcdProgram,
                                           "--name=mxl-test",
                                           "--data-dir=" + data.string(),
                                           "--listen-client-urls=" + client,
                                           "--advertise-client-urls=" + client,
                                           "--listen-peer-urls=" + peer,
                                           "--initial-advertise-peer-urls=" + peer,
                                           "--initial-cluster=mxl-test=" + peer,
                                           "--logger=zap",
                                           "--log-outputs=" + logPath.string()};
        if (_secured)
        {
            arguments.insert(arguments.end(), {"--cert-file=" + _secured->certificate, "--key-file=" + _secured->key,
                                               "--trusted-ca-file=" + _secured->caFile, "--client-cert-auth"});
        }
        _pid = ::fork();
        if (_pid == 0)
        {
            auto const devNull = ::open("/dev/null", O_RDWR);
            ::dup2(devNull, STDIN_FILENO);
            ::dup2(devNull, STDOUT_FILENO);
            ::dup2(devNull, STDERR_FILENO);
            std::vector<char*> argv;
            for (auto& argument : arguments)
            {
                argv.push_back(argument.data());
            }
            argv.push_back(nullptr);
            ::execv(argv[0], argv.data());
            ::_exit(127);
        }
        auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds{60};
        while (std::chrono::steady_clock::now() < deadline)
        {
            // etcd 3.4 with the zap logger says so per client listener; older loggers say "ready to serve client requests".
            auto const text = log();
            if (text.find("serving client traffic") != std::string::npos ||
                text.find("ready to serve client requests") != std::string::npos)
            {
                return;
            }
            int status = 0;
            if (::waitpid(_pid, &status, WNOHANG) == _pid)
            {
                _pid = -1;
                throw std::runtime_error{fmt::format("etcd exited at start (status {}):\n{}", status, log())};
            }
            std::this_thread::sleep_for(std::chrono::milliseconds{50});
        }
        kill();
        throw std::runtime_error{fmt::format("etcd did not serve clients within 60 s:\n{}", log())};
    }

    void EtcdServer::kill()
    {
        if (_pid <= 0)
        {
            return;
        }
        ::kill(_pid, SIGKILL);
        int status = 0;
        ::waitpid(_pid, &status, 0);
        _pid = -1;
    }

    std::string EtcdServer::log() const
    {
        std::ifstream file{_directory / "etcd.log"};
        std::stringstream text;
        text << file.rdbuf();
        return text.str();
    }

    void EtcdServer::enableAuthentication(std::string const& user, std::string const& password, std::string const& prefix)
    {
        auto const scheme = _secured ? "https" : "http";
        auto const call = [&](char const* path, nlohmann::json const& body)
        {
            auto const answer =
                httpExchange("POST", fmt::format("{}://{}{}", scheme, endpoint(), path), body.dump(), std::chrono::seconds{20});
            auto const* got = std::get_if<HttpAnswer>(&answer);
            INFO("etcd ", path, ": ", got != nullptr ? got->body : std::get<HttpFailure>(answer).reason);
            REQUIRE((got != nullptr && got->status == 200));
        };
        auto end = prefix;
        end.back() = static_cast<char>(end.back() + 1);
        call("/v3/auth/user/add", {{"name", "root"}, {"password", password + "-root"}});
        call("/v3/auth/user/grant", {{"user", "root"}, {"role", "root"}});
        call("/v3/auth/role/add", {{"name", user}});
        call("/v3/auth/role/grant",
             {{"name", user}, {"perm", {{"permType", "READWRITE"}, {"key", encodeBase64(prefix)}, {"range_end", encodeBase64(end)}}}});
        call("/v3/auth/user/add", {{"name", user}, {"password", password}});
        call("/v3/auth/user/grant", {{"user", user}, {"role", user}});
        call("/v3/auth/enable", nlohmann::json::object());
    }
}
