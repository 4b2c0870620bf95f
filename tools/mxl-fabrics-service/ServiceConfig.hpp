// The configuration of one service instance: a `key = value` file (Boost.Program_options syntax) whose every key is
// also a command-line option (`--key value`; the command line wins). Everything is checked before the service
// touches a flow or the fabric, so that a typo stops it at once with exit code 78 (EX_CONFIG), which systemd's
// RestartPreventExitStatus= keeps from turning into a restart loop.
#pragma once

#include <mxl/fabrics.h>

#include <ListenAddress.hpp>
#include <Registration.hpp>
#include <SenderLookup.hpp>
#include <SigningKeys.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace mxl::service
{
    // EX_CONFIG from sysexits.h.
    inline constexpr int configErrorExitCode = 78;

    // A bad setting; the message names where it came from (the file or the command line), the key and the value.
    class ConfigError : public std::runtime_error
    {
    public:
        using std::runtime_error::runtime_error;
    };

    enum class Role
    {
        Target,
        Initiator,
    };

    enum class LogLevel
    {
        Debug,
        Info,
        Warning,
    };

    using HttpListen = ListenAddress;

    // Where a target publishes its ticket in the facility's etcd (lib/directory/TicketKey.hpp).
    struct EtcdPublication
    {
        // host:port
        std::string endpoint;
        // The key without the flow id, which the target learns from its flow definition: /mxl/tickets/<domain>/.
        std::string key;
        std::chrono::seconds lease{10};
    };

    using NmosRegistry = nmos::RegistryAddress;

    using NmosQuery = nmos::QueryAddress;

    // IS-10 authorization of the requests to http_listen.
    struct Authorization
    {
        // The authorization server's issuer URL.
        std::string issuer;
        // The name the node identifies itself with in tokens' "aud".
        std::string audience;
        bool protectMetrics = false;
        // The service's own client (client credentials); empty: it calls without tokens.
        std::string clientId;
        std::string clientSecret;
    };

    struct ServiceConfig
    {
        Role role = Role::Target;
        // Where the settings came from, for later messages: "file '/etc/mxl/a.conf'" or "the command line".
        std::string origin;
        std::filesystem::path domain;
        mxlFabricsProvider provider = MXL_FABRICS_PROVIDER_TCP;
        // The fabrics backend (transport): libmxl-fabrics-<backend>.so.
        std::string backend;
        // The setup options of the fabrics target or initiator: empty, or the "transport" the config names.
        std::string setupOptions;
        std::string node;
        std::string service;
        // Ticket (target) and /metrics (both); nullopt serves nothing over HTTP. HTTPS where it names TLS files.
        std::optional<HttpListen> http;
        // The certificate authorities https:// servers it calls must be signed by; empty: the system's.
        std::string tlsCaFile;
        std::optional<Authorization> authorization;
        std::chrono::milliseconds stallTimeout{5000};
        std::chrono::milliseconds statusInterval{1000};
        // A grain moved later than this after its own timestamp counts as late.
        std::chrono::milliseconds lateAfter{100};
        // Needs http: what is registered is what the Node API serves.
        std::optional<NmosRegistry> nmosRegistry;
        // nmos_query, or the registry's host and port where only nmos_registry is set.
        std::optional<NmosQuery> nmosQuery;
        LogLevel logLevel = LogLevel::Info;
        // Targets sign their tickets with the current key; initiators accept only tickets signed with it (or with the
        // previous key in its grace period).
        std::optional<signing::SigningKeys> ticketKeys;
        std::chrono::seconds ticketLifetime{3600};

        // Target.
        std::filesystem::path flowDefinition;
        // The writer's flow options: the text of 'flow_options' with payloadLocation and deviceIndex merged in where
        // 'device' is given; empty for none.
        std::string writerOptions;
        // The single target's ticket file, or the first path's.
        std::filesystem::path ticketFile;
        std::optional<EtcdPublication> etcd;
        // Redundant paths: two nodes (none: one target on 'node'), and the second path's ticket file (empty: none).
        std::vector<std::string> paths;
        std::filesystem::path secondTicketFile;

        // Initiator.
        std::string flowId;
        // Ticket files, http:// URLs and etcd:// keys, tried in order.
        std::vector<std::string> ticketSources;
        std::chrono::milliseconds ticketPoll{1000};
        std::chrono::milliseconds connectTimeout{10000};
        std::chrono::milliseconds backoffInitial{200};
        std::chrono::milliseconds backoffMax{5000};
    };

    // nullopt after printing --help. Throws ConfigError.
    std::optional<ServiceConfig> loadServiceConfig(int argc, char const* const* argv);
}
