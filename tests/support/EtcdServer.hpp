// A real etcd server for the ticket-directory tests: one member on free loopback ports, its data in a temporary
// directory, its log in a file there (a pipe nobody drains could block it). Stopping and starting again keeps the data
// unless asked to forget it, so a test can restart etcd as an operator would, or as a machine that lost its disk.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <sys/types.h>

namespace mxl::test
{
    class EtcdServer
    {
    public:
        // Why etcd cannot run here (not installed), or nullopt.
        static std::optional<std::string> unavailable();

        // TLS on the client URL with this certificate and key, and clients required to present a certificate of `caFile`.
        struct Secured
        {
            std::string certificate;
            std::string key;
            std::string caFile;
        };

        // Starts etcd and waits (up to 60 s: a loaded machine) until it serves clients; throws with its log otherwise.
        explicit EtcdServer(std::optional<Secured> secured = std::nullopt);
        ~EtcdServer();

        EtcdServer(EtcdServer const&) = delete;
        EtcdServer& operator=(EtcdServer const&) = delete;

        // host:port of the client URL.
        [[nodiscard]] std::string endpoint() const;

        // SIGKILL, then wait for the process to end.
        void kill();
        // Starts it again on the same ports; with `forgetData`, from an empty data directory.
        void start(bool forgetData = false);

        [[nodiscard]] std::string log() const;

        // etcd's authentication on, with a root user and `user`, whose password is `password`, allowed to read and
        // write the keys below `prefix` and nothing else. Over the gateway, as lib/http's client reaches it (HTTPS,
        // with the client certificate it presents, where secured). Fails the test where etcd refuses.
        void enableAuthentication(std::string const& user, std::string const& password, std::string const& prefix);

    private:
        std::optional<Secured> _secured;
        std::filesystem::path _directory;
        std::uint16_t _clientPort = 0;
        std::uint16_t _peerPort = 0;
        pid_t _pid = -1;
    };
}
