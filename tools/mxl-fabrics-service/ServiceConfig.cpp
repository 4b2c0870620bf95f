#include "ServiceConfig.hpp"

#include <common/BoundedFile.hpp>
#include <common/BoundedJson.hpp>
#include <common/SecretFile.hpp>

#include <DeviceFlowOptions.hpp>
#include <DirectoryError.hpp>
#include <EtcdClient.hpp>
#include <FabricsBackend.hpp>
#include <FabricsInterfaceChoice.hpp>
#include <FabricsInterfaces.hpp>
#include <FlowDescription.hpp>
#include <FlowId.hpp>
#include <HostName.hpp>
#include <HttpClient.hpp>
#include <HttpsTrust.hpp>
#include <SetupOptionsText.hpp>
#include <SigningKeys.hpp>
#include <TextFile.hpp>
#include <TicketKey.hpp>
#include <ToolError.hpp>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <iostream>
#include <map>
#include <sstream>

namespace mxl::service
{
    namespace
    {
        namespace po = boost::program_options;

        constexpr char const* commandLine = "the command line";

        // The keys a value may be given for, with their help text. `ticket` is the one key that may repeat.
        po::options_description settingKeys()
        {
            po::options_description keys{"Settings (config file `key = value`, or --key value)"};
            auto const add = [&](char const* name, char const* help) { keys.add_options()(name, po::value<std::string>(), help); };
            add("role", "target or initiator");
            add("domain", "MXL domain directory (must exist)");
            add("backend", "fabrics backend (transport) to load, libmxl-fabrics-<backend>.so: ofi or ucx (default: $MXL_FABRICS_BACKEND, "
                           "else ofi); both ends must use the same");
            add("transport", "how writes travel: rma, msg or auto (default: $MXL_FABRICS_TRANSPORT, else auto: rma where the provider "
                             "has it); a target's ticket says msg, an initiator must match its tickets (docs/fabrics.md)");
            add("provider", "fabrics provider: tcp, verbs, efa or shm (default tcp)");
            add("node", "fabric address to bind (target: the address peers reach; default: the provider's first interface)");
            add("service", "port (tcp, verbs) or endpoint name (shm); target default 0 = any free port");
            add("http_listen",
                "host:port of the HTTP endpoint (/ticket on targets, /metrics and the NMOS Node and Connection APIs on both); "
                "port 0 = any free port");
            add("http_tls_certificate",
                "both, with http_listen and http_tls_key: PEM certificate chain (the leaf first) to serve HTTPS with (TLS 1.2 and "
                "1.3 only, AMWA BCP-003-01) in place of plain HTTP; read again with the key on SIGHUP, without dropping a grain or a "
                "connection");
            add("http_tls_key", "both, with http_tls_certificate: its PEM private key (mode 0600)");
            add("tls_ca_file", "both: PEM bundle of the certificate authorities that https:// servers this service calls (registry, "
                               "Query API, ticket URLs, IS-05 hand-overs) must be signed by (default: the system's, "
                               "/etc/ssl/certs); their certificate must also name the host or address in the URL");
            add("auth_server",
                "both: issuer URL (http[s]://host[:port][/path]) of the facility's AMWA IS-10 authorization server: "
                "every request to the Node and Connection APIs and /ticket needs a bearer access token it signed (RS512; its "
                "keys come from its RFC 8414 metadata's jwks_uri) that names this node in \"aud\" and permits the request in "
                "its x-nmos-* claims; /ticket needs write permission to the receiver's single/receivers/<id>/staged");
            add("auth_audience", "both, with auth_server: the name this node identifies itself with in tokens' \"aud\" (default: the "
                                 "host's name)");
            add("auth_client_id", "both, with auth_server: the service's client id at the authorization server: every https:// "
                                  "request it makes (registration, tickets, IS-05 hand-overs) carries an access token of this client "
                                  "(client credentials grant, client_secret_basic)");
            add("auth_client_secret_file", "both, with auth_client_id: file holding the client's secret (mode 0600)");
            add("auth_protect_metrics", "both, with auth_server: true: /metrics needs read permission to the Node API's 'self' too "
                                        "(default false: open to scrapers)");
            add("nmos_registry",
                "both, with http_listen: http://host:port of an AMWA IS-04 v1.3 Registration API to register the Node API's "
                "resources with; /x-nmos/registration/v1.3 is appended unless the URL ends with it (no DNS-SD discovery)");
            add("nmos_query",
                "target, with http_listen: http://host:port of an AMWA IS-04 v1.3 Query API (default: nmos_registry's host and "
                "port; /x-nmos/query/v1.3 is appended unless the URL ends with it). A receiver activated with a sender_id and no "
                "ext_mxl_sender_api looks the sender's Connection API up there");
            add("nmos_heartbeat_s", "both, with nmos_registry: seconds between heartbeats to the registry (1-10, default 5; a registry "
                                    "forgets a node 12 s after its last heartbeat)");
            add("stall_timeout_ms",
                "no grain or batch committed (target) or delivered (initiator) for this long is a stall (500-600000, default 5000)");
            add("status_interval_ms", "how often STATUS= and the log report state and rates (100-60000, default 1000)");
            add("late_after_ms", "a grain or batch moved later than this after its timestamp counts as late (1-60000, default 100)");
            add("log_level", "debug, info or warning (default info)");
            add("flow_definition", "target: NMOS JSON definition of the flow to receive into (video, audio or data)");
            add("flow_options", "target: JSON flow options file");
            add("device", "target, optional: create the flow with its payloads in the memory of CUDA device N (0-2147483647, the "
                          "ordinal in this process after CUDA_VISIBLE_DEVICES): {\"payloadLocation\": \"device\", \"deviceIndex\": N} "
                          "merged into flow_options, which must not name another location or device; video and data flows (not audio), "
                          "not with 'path'; the payloads arrive straight in device memory where the interface registers it, else staged "
                          "through pinned host memory, as the log says; $MXL_FABRICS_DEVICE_PAYLOADS (auto, direct or staged) "
                          "chooses (docs/device-flows.md)");
            add("ticket_file", "target: where to publish the ticket (absolute path; written atomically, mode 0600); with 'path', once "
                               "per path, in path order");
            keys.add_options()("path", po::value<std::vector<std::string>>(),
                               "target: a redundant path, given exactly twice instead of 'node': one fabrics target per path (its "
                               "listen address for tcp/verbs, any name for shm), each on a private path flow, merged into the flow "
                               "from the path that delivers each grain (audio: sample) first");
            add("etcd",
                "target: host:port of an etcd client URL to publish the ticket in, under a lease (the facility's ticket directory)");
            add("etcd_tls", "both: true: reach etcd (the 'etcd' setting, etcd:// tickets) over HTTPS, its certificate verified against "
                            "tls_ca_file (default false)");
            add("etcd_certificate", "both, with etcd_tls: PEM client certificate to present to etcd (--client-cert-auth); where "
                                    "etcd's authentication is on too, its subject must have no common name (etcd's gateway refuses one)");
            add("etcd_key", "both, with etcd_certificate: its PEM private key (mode 0600)");
            add("etcd_user", "both: etcd user to authenticate as (etcd's authentication on), with etcd_password_file");
            add("etcd_password_file", "both, with etcd_user: file holding the user's password (mode 0600)");
            add("etcd_domain", "target: the domain's name in the ticket key /mxl/tickets/<etcd_domain>/<flow id> (default: the last "
                               "component of 'domain')");
            add("etcd_lease_s", "target: the lease of the ticket in etcd: a target that dies leaves it for this long (2-3600, default 10)");
            add("allow_initiators",
                "target (tcp, verbs): addresses and prefixes, separated by commas or spaces (198.51.100.0/24, 192.0.2.7, "
                "2001:db8::/32), of the only initiators whose connections it accepts; any other is refused before it can reach "
                "the flow's memory, logged once per address and counted in /metrics (default: any initiator)");
            add("ticket_proof",
                "both, with ticket_key: true: the initiator proves in each connection request that it holds the ticket key (a MAC "
                "over the target's epoch), and the target (tcp, verbs) refuses requests without that proof before they reach the "
                "flow's memory; an extension of this implementation, so leave it false (the default) on a target that MXL SDK "
                "initiators feed and on an initiator that feeds SDK targets");
            add("ticket_key", "both: key file (JSON, mode 0600) to sign tickets with (target) and to accept only tickets signed with it "
                              "(initiator)");
            add("ticket_lifetime_s", "target, with ticket_key: a signed ticket expires this long after signing; it is signed again at half "
                                     "of it (60-604800, default 3600)");
            add("flow_id", "initiator: UUID of the local flow to send");
            keys.add_options()(
                "ticket", po::value<std::vector<std::string>>(),
                "initiator: ticket file path, http://host:port/ticket URL or etcd://host:port/mxl/tickets/<domain>/<flow id> "
                "key; repeat to give fallbacks; none (with http_listen): wait for an IS-05 activation");
            add("ticket_poll_ms", "initiator: how often the ticket is fetched again to see a new epoch (100-60000, default 1000)");
            add("connect_timeout_ms",
                "initiator: a ticket that gives no connection for this long is reported stale (500-600000, default 10000)");
            add("backoff_initial_ms", "initiator: first wait before re-establishing (10-60000, default 200)");
            add("backoff_max_ms", "initiator: longest wait between attempts (10-600000, default 5000)");
            return keys;
        }

        struct Setting
        {
            std::vector<std::string> values;
            std::string origin;
        };

        using Settings = std::map<std::string, Setting>;

        // Adds what one source gave; a key repeated within one source is an error unless it may repeat. Keys already
        // present from an earlier (higher-priority) source are kept.
        void collect(po::parsed_options const& parsed, std::string const& origin, Settings& settings)
        {
            Settings own;
            for (auto const& option : parsed.options)
            {
                if (option.string_key.empty() || option.string_key == "config" || option.string_key == "help")
                {
                    continue;
                }
                auto& setting = own[option.string_key];
                // A ticket repeats as fallbacks, a path as the redundant paths, and a ticket file once per path (checked later).
                bool const mayRepeat = option.string_key == "ticket" || option.string_key == "path" || option.string_key == "ticket_file";
                if (!setting.values.empty() && !mayRepeat)
                {
                    throw ConfigError{fmt::format("{}: key '{}' is given twice ('{}' and '{}'); give it once", origin, option.string_key,
                                                  setting.values.front(), option.value.empty() ? "" : option.value.front())};
                }
                setting.origin = origin;
                setting.values.insert(setting.values.end(), option.value.begin(), option.value.end());
            }
            for (auto& [key, setting] : own)
            {
                settings.try_emplace(key, std::move(setting));
            }
        }

        // Reads typed values out of the settings; every failure names origin, key and value.
        class Reader
        {
        public:
            explicit Reader(Settings settings)
                : _settings{std::move(settings)}
            {
            }

            [[nodiscard]] bool has(std::string const& key) const
            {
                return _settings.contains(key);
            }

            [[noreturn]] void fail(std::string const& key, std::string const& value, std::string_view expected) const
            {
                throw ConfigError{fmt::format("{}: key '{}' value '{}': {}", originOf(key), key, value, expected)};
            }

            [[noreturn]] void missing(std::string const& key, std::string_view why) const
            {
                throw ConfigError{fmt::format("{}: key '{}' is missing: {}", _fallbackOrigin, key, why)};
            }

            void setFallbackOrigin(std::string origin)
            {
                _fallbackOrigin = std::move(origin);
            }

            [[nodiscard]] std::string const& fallbackOrigin() const
            {
                return _fallbackOrigin;
            }

            [[nodiscard]] std::optional<std::string> text(std::string const& key) const
            {
                auto const found = _settings.find(key);
                if (found == _settings.end())
                {
                    return std::nullopt;
                }
                return found->second.values.front();
            }

            [[nodiscard]] std::string required(std::string const& key, std::string_view why) const
            {
                auto value = text(key);
                if (!value || value->empty())
                {
                    missing(key, why);
                }
                return *value;
            }

            [[nodiscard]] std::vector<std::string> all(std::string const& key) const
            {
                auto const found = _settings.find(key);
                return found == _settings.end() ? std::vector<std::string>{} : found->second.values;
            }

            std::chrono::milliseconds milliseconds(std::string const& key, std::chrono::milliseconds fallback, std::int64_t min,
                                                   std::int64_t max) const
            {
                return std::chrono::milliseconds{wholeNumber(key, fallback.count(), min, max, "milliseconds")};
            }

            std::chrono::seconds seconds(std::string const& key, std::chrono::seconds fallback, std::int64_t min, std::int64_t max) const
            {
                return std::chrono::seconds{wholeNumber(key, fallback.count(), min, max, "seconds")};
            }

            std::int64_t wholeNumber(std::string const& key, std::int64_t fallback, std::int64_t min, std::int64_t max,
                                     char const* unit) const
            {
                auto const value = text(key);
                if (!value)
                {
                    return fallback;
                }
                std::int64_t number = 0;
                auto const [end, error] = std::from_chars(value->data(), value->data() + value->size(), number);
                if (error != std::errc{} || end != value->data() + value->size() || number < min || number > max)
                {
                    fail(key, *value, fmt::format("expected a whole number of {} from {} to {}", unit, min, max));
                }
                return number;
            }

            [[nodiscard]] std::string originOf(std::string const& key) const
            {
                auto const found = _settings.find(key);
                return found == _settings.end() ? _fallbackOrigin : found->second.origin;
            }

        private:
            Settings _settings;
            std::string _fallbackOrigin;
        };

        std::optional<std::uint16_t> parsePort(std::string_view text)
        {
            unsigned port = 0;
            auto const [end, error] = std::from_chars(text.data(), text.data() + text.size(), port);
            if (text.empty() || error != std::errc{} || end != text.data() + text.size() || port > 65535)
            {
                return std::nullopt;
            }
            return static_cast<std::uint16_t>(port);
        }

        // http[s]://host:port/path with a port from 1 to 65535 (an IPv6 host in brackets); what the HTTP clients can reach.
        void checkHttpUrl(Reader const& reader, std::string const& key, std::string const& url)
        {
            auto const authority = std::string_view{url}.substr(url.find("://") + 3);
            auto const slash = authority.find('/');
            auto const hostPort = authority.substr(0, slash);
            auto const colon = hostPort.rfind(':');
            if (slash == std::string_view::npos || colon == std::string_view::npos || colon == 0 || hostPort.ends_with(']'))
            {
                reader.fail(key, url, "expected http://host:port/path or https://host:port/path");
            }
            auto const port = parsePort(hostPort.substr(colon + 1));
            if (!port || *port == 0)
            {
                reader.fail(key, url, "the port must be a number from 1 to 65535");
            }
        }

        HttpListen parseHttpListen(Reader const& reader, std::string const& value)
        {
            // "host:port" or "[v6-host]:port".
            auto const colon = value.rfind(':');
            if (colon == std::string::npos || colon == 0)
            {
                reader.fail("http_listen", value, "expected host:port, e.g. 0.0.0.0:8470 or [::1]:8470");
            }
            auto host = value.substr(0, colon);
            if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
            {
                host = host.substr(1, host.size() - 2);
            }
            auto const port = parsePort(std::string_view{value}.substr(colon + 1));
            if (!port)
            {
                reader.fail("http_listen", value, "the port must be a number from 0 to 65535");
            }
            return {host, *port, std::nullopt};
        }

        // The text of a secret file (a password), without its line end.
        std::string readSecret(Reader const& reader, char const* key, std::string const& path)
        {
            try
            {
                auto secret = readSecretFile(path);
                while (!secret.empty() && (secret.back() == '\n' || secret.back() == '\r'))
                {
                    secret.pop_back();
                }
                return secret;
            }
            catch (FileReadError const& unreadable)
            {
                reader.fail(key, path, unreadable.what());
            }
        }

        // How this process reaches etcd (lib/directory's EtcdAccess, and the client certificate the HTTP client presents):
        // set for the process here, as the trust is; a service reads its configuration once.
        void readEtcdAccess(Reader const& reader)
        {
            directory::EtcdAccess access;
            if (auto const tls = reader.text("etcd_tls"))
            {
                if (*tls != "true" && *tls != "false")
                {
                    reader.fail("etcd_tls", *tls, "expected true or false");
                }
                access.tls = *tls == "true";
            }
            auto const certificate = reader.text("etcd_certificate");
            auto const key = reader.text("etcd_key");
            if ((certificate || key) && !access.tls)
            {
                auto const* given = certificate ? "etcd_certificate" : "etcd_key";
                reader.fail(given, *(certificate ? certificate : key), "only takes effect with 'etcd_tls = true'");
            }
            if (certificate || key)
            {
                if (!certificate || !key)
                {
                    reader.missing(certificate ? "etcd_key" : "etcd_certificate", "etcd's client certificate needs both the certificate "
                                                                                  "and its private key");
                }
                try
                {
                    setHttpsClientCertificate(TlsFiles{*certificate, *key});
                }
                catch (HttpsTrustError const& unusable)
                {
                    reader.fail("etcd_certificate", *certificate, unusable.what());
                }
            }
            auto const user = reader.text("etcd_user");
            auto const passwordFile = reader.text("etcd_password_file");
            if (user && !passwordFile)
            {
                reader.missing("etcd_password_file", "'etcd_user' needs the user's password");
            }
            if (passwordFile && !user)
            {
                reader.fail("etcd_password_file", *passwordFile, "only takes effect with 'etcd_user'");
            }
            if (user)
            {
                access.user = *user;
                access.password = readSecret(reader, "etcd_password_file", *passwordFile);
            }
            directory::setEtcdAccess(std::move(access));
        }

        // An http[s]://host:port[/prefix][apiPath] URL as (origin, prefix + apiPath); `key` names it in messages.
        std::pair<std::string, std::string> parseNmosApiUrl(Reader const& reader, char const* key, std::string const& url,
                                                            std::string_view apiPath, std::string_view what)
        {
            auto const expected =
                fmt::format("expected http://host:port or https://host:port of an {}, optionally ending in {}", what, apiPath);
            if (!isHttpUrl(url))
            {
                reader.fail(key, url, expected);
            }
            std::string_view const scheme = url.starts_with("https://") ? "https://" : "http://";
            auto const rest = url.substr(scheme.size());
            auto const slash = rest.find('/');
            auto const authority = rest.substr(0, slash);
            auto path = slash == std::string::npos ? std::string{} : rest.substr(slash);
            while (path.ends_with('/'))
            {
                path.pop_back();
            }
            if (path.ends_with(apiPath))
            {
                path.resize(path.size() - apiPath.size());
            }
            auto const colon = authority.rfind(':');
            auto const portGiven = colon != std::string::npos && authority.find(']', colon) == std::string::npos;
            if (authority.empty() || authority.front() == ':' || (portGiven && !parsePort(std::string_view{authority}.substr(colon + 1))))
            {
                reader.fail(key, url, expected);
            }
            return {std::string{scheme} + authority, path + std::string{apiPath}};
        }

        constexpr std::string_view registrationApi = "/x-nmos/registration/v1.3";
        constexpr std::string_view queryApi = "/x-nmos/query/v1.3";

        NmosRegistry parseNmosRegistry(Reader const& reader, std::string const& url)
        {
            auto [origin, apiPath] = parseNmosApiUrl(reader, "nmos_registry", url, registrationApi, "IS-04 Registration API");
            NmosRegistry registry{url, std::move(origin), std::move(apiPath)};
            registry.heartbeatInterval = reader.seconds("nmos_heartbeat_s", registry.heartbeatInterval, 1, 10);
            return registry;
        }

        NmosQuery parseNmosQuery(Reader const& reader, std::string const& url)
        {
            auto [origin, apiPath] = parseNmosApiUrl(reader, "nmos_query", url, queryApi, "IS-04 Query API");
            return {url, std::move(origin), std::move(apiPath)};
        }

        bool isAbsolute(std::string const& path)
        {
            return !path.empty() && path.front() == '/';
        }

        // A definition the flow library would refuse later is refused here, with the key that names it.
        // Returns the definition's format.
        std::string checkFlowDefinition(Reader const& reader, std::string const& path)
        {
            std::string text;
            try
            {
                text = readBoundedFile(path);
            }
            catch (FileReadError const& error)
            {
                reader.fail("flow_definition", path, "cannot read the file: " + error.reason());
            }
            auto const description = tools::tryParseFlowDescription(text);
            if (!description)
            {
                reader.fail("flow_definition", path, "the file is not a JSON object (an NMOS flow definition was expected)");
            }
            if (description->format != "urn:x-nmos:format:video" && description->format != "urn:x-nmos:format:data" &&
                description->format != "urn:x-nmos:format:audio")
            {
                reader.fail("flow_definition", path, fmt::format("format '{}' is neither video, audio nor data", description->format));
            }
            return description->format;
        }

        void checkParentDirectory(Reader const& reader, std::string const& key, std::string const& path)
        {
            if (!isAbsolute(path))
            {
                reader.fail(key, path, "expected an absolute path");
            }
            auto const parent = std::filesystem::path{path}.parent_path();
            std::error_code error;
            if (!std::filesystem::is_directory(parent, error))
            {
                reader.fail(key, path, fmt::format("its directory '{}' does not exist", parent.string()));
            }
        }

        void readEtcdKeys(Reader const& reader, ServiceConfig& config, std::string const& endpoint)
        {
            auto const colon = endpoint.rfind(':');
            if (colon == std::string::npos || colon == 0 || !parsePort(std::string_view{endpoint}.substr(colon + 1)) ||
                endpoint.find('/') != std::string::npos)
            {
                reader.fail("etcd", endpoint, "expected host:port of an etcd client URL, e.g. 192.0.2.5:2379");
            }
            EtcdPublication etcd;
            etcd.endpoint = endpoint;
            auto const domainName = reader.text("etcd_domain").value_or(config.domain.lexically_normal().filename().string());
            try
            {
                etcd.key = directory::ticketKey(domainName, "");
            }
            catch (directory::DirectoryError const& error)
            {
                reader.fail("etcd_domain", domainName, error.what());
            }
            etcd.lease = reader.seconds("etcd_lease_s", etcd.lease, 2, 3600);
            config.etcd = std::move(etcd);
        }

        // Redundant paths: exactly two, different, instead of 'node'.
        void readPathKeys(Reader const& reader, ServiceConfig& config)
        {
            config.paths = reader.all("path");
            if (config.paths.empty())
            {
                return;
            }
            if (config.paths.size() != 2)
            {
                reader.fail("path", config.paths.back(),
                            fmt::format("given {} time(s); redundant paths need it exactly twice, one node per path", config.paths.size()));
            }
            if (config.paths[0] == config.paths[1])
            {
                reader.fail("path", config.paths[1], "given twice: the two paths need two different nodes");
            }
            if (!config.node.empty())
            {
                reader.fail("node", config.node, "excludes 'path': each path names its own node");
            }
        }

        // 'device': the flow options merged with the device, checked before anything is created.
        void readDeviceKey(Reader const& reader, ServiceConfig& config, std::string const& device, std::string const& optionsFile,
                           std::string const& format)
        {
            auto const index = tools::parseDeviceIndex(device);
            if (!index)
            {
                reader.fail("device", device, "expected a CUDA device ordinal, an integer from 0 to 2147483647");
            }
            if (format == "urn:x-nmos:format:audio")
            {
                reader.fail("device", device,
                            fmt::format("flow_definition '{}' is an audio flow, whose samples stay in host memory (docs/device-flows.md)",
                                        config.flowDefinition.string()));
            }
            if (!config.paths.empty())
            {
                reader.fail("device", device, "does not combine with 'path': the redundant paths are merged in host memory");
            }
            try
            {
                config.writerOptions = tools::withDeviceOptions(config.writerOptions, fmt::format("flow_options file '{}'", optionsFile),
                                                                *index, fmt::format("device {}", *index));
            }
            catch (tools::DeviceOptionsConflict const& conflict)
            {
                reader.fail("device", device, conflict.what());
            }
        }

        void readTargetKeys(Reader const& reader, ServiceConfig& config)
        {
            config.flowDefinition = reader.required("flow_definition", "a target needs the definition of the flow it receives into");
            auto const format = checkFlowDefinition(reader, config.flowDefinition.string());
            auto const options = reader.text("flow_options");
            if (options)
            {
                if (std::error_code error; !std::filesystem::exists(*options, error))
                {
                    reader.fail("flow_options", *options, "the file does not exist");
                }
                try
                {
                    config.writerOptions = tools::readTextFile(*options, "flow options");
                }
                catch (tools::ToolError const& unreadable)
                {
                    reader.fail("flow_options", *options, unreadable.what());
                }
                // Empty options are libmxl's defaults.
                auto const blank = config.writerOptions.find_first_not_of(" \t\r\n") == std::string::npos;
                if (auto const parsed = parseBoundedJson(config.writerOptions); !blank && (!parsed.ok() || !parsed.value.is_object()))
                {
                    reader.fail("flow_options", *options,
                                parsed.ok() ? "the file is not a JSON object of flow options" : "the file is not JSON: " + parsed.problem);
                }
            }
            readPathKeys(reader, config);
            if (auto const device = reader.text("device"))
            {
                readDeviceKey(reader, config, *device, options.value_or(""), format);
            }
            auto const ticketFiles = reader.all("ticket_file");
            if (!ticketFiles.empty() && ticketFiles.size() != std::max<std::size_t>(config.paths.size(), 1))
            {
                reader.fail("ticket_file", ticketFiles.back(),
                            config.paths.empty() ? fmt::format("given {} times; give it once", ticketFiles.size())
                                                 : fmt::format("given {} times for {} paths; give it once per path, in path order",
                                                               ticketFiles.size(), config.paths.size()));
            }
            for (auto const& ticketFile : ticketFiles)
            {
                checkParentDirectory(reader, "ticket_file", ticketFile);
            }
            if (!ticketFiles.empty())
            {
                config.ticketFile = ticketFiles.front();
                config.secondTicketFile = ticketFiles.size() > 1 ? std::filesystem::path{ticketFiles[1]} : std::filesystem::path{};
            }
            if (auto const etcd = reader.text("etcd"))
            {
                readEtcdKeys(reader, config, *etcd);
            }
            else if (reader.has("etcd_domain") || reader.has("etcd_lease_s"))
            {
                auto const key = reader.has("etcd_domain") ? "etcd_domain" : "etcd_lease_s";
                reader.fail(key, reader.all(key).front(), "only takes effect with 'etcd'");
            }
            if (config.ticketFile.empty() && !config.http && !config.etcd)
            {
                reader.missing("ticket_file",
                               "a target publishes its ticket in a file, over http_listen, in etcd, or in several; give at least one");
            }
        }

        void readInitiatorKeys(Reader const& reader, ServiceConfig& config)
        {
            auto const flowId = reader.required("flow_id", "an initiator needs the UUID of the local flow it sends");
            auto const canonical = tools::canonicalFlowId(flowId);
            if (!canonical)
            {
                reader.fail("flow_id", flowId, "expected a UUID such as 5fbec3b1-1b0c-417b-9aa6-6a6e1bf2e65b");
            }
            config.flowId = *canonical;
            config.ticketSources = reader.all("ticket");
            if (config.ticketSources.empty() && !reader.has("http_listen"))
            {
                reader.missing("ticket", "an initiator needs the target's ticket file, http(s):// URL or etcd:// key, or http_listen to "
                                         "be connected over the IS-05 Connection API");
            }
            for (auto const& source : config.ticketSources)
            {
                if (isHttpUrl(source))
                {
                    checkHttpUrl(reader, "ticket", source);
                    continue;
                }
                if (directory::isEtcdUrl(source))
                {
                    try
                    {
                        static_cast<void>(directory::parseEtcdUrl(source));
                    }
                    catch (directory::DirectoryError const& error)
                    {
                        reader.fail("ticket", source, error.what());
                    }
                    continue;
                }
                if (source.find("://") != std::string::npos)
                {
                    reader.fail("ticket", source, "only files, http:// URLs and etcd:// keys are supported");
                }
                if (!isAbsolute(source))
                {
                    reader.fail("ticket", source, "expected an absolute file path, an http:// URL or an etcd:// key");
                }
                // The target may write the file later; what is there already must be a file the service can read.
                if (std::error_code error; std::filesystem::exists(source, error) && !std::filesystem::is_regular_file(source, error))
                {
                    try
                    {
                        static_cast<void>(readBoundedFile(source));
                    }
                    catch (FileReadError const& unreadable)
                    {
                        reader.fail("ticket", source, unreadable.reason());
                    }
                }
            }
            config.ticketPoll = reader.milliseconds("ticket_poll_ms", config.ticketPoll, 100, 60000);
            config.connectTimeout = reader.milliseconds("connect_timeout_ms", config.connectTimeout, 500, 600000);
            config.backoffInitial = reader.milliseconds("backoff_initial_ms", config.backoffInitial, 10, 60000);
            config.backoffMax = reader.milliseconds("backoff_max_ms", config.backoffMax, 10, 600000);
            if (config.backoffInitial > config.backoffMax)
            {
                reader.fail("backoff_initial_ms", std::to_string(config.backoffInitial.count()),
                            fmt::format("must not exceed backoff_max_ms ({})", config.backoffMax.count()));
            }
        }

        ServiceConfig readConfig(Reader const& reader)
        {
            ServiceConfig config;
            config.origin = reader.fallbackOrigin();
            auto const role = reader.required("role", "expected target or initiator");
            if (role == "target")
            {
                config.role = Role::Target;
            }
            else if (role == "initiator")
            {
                config.role = Role::Initiator;
            }
            else
            {
                reader.fail("role", role, "expected target or initiator");
            }

            config.domain = reader.required("domain", "the MXL domain directory of the flow");
            std::error_code error;
            if (!std::filesystem::is_directory(config.domain, error))
            {
                reader.fail("domain", config.domain.string(), "not an existing directory");
            }

            config.backend = reader.text("backend").value_or("");
            tools::SetupSettings setup;
            setup.transport = reader.text("transport");
            if (setup.transport && *setup.transport != "rma" && *setup.transport != "msg" && *setup.transport != "auto")
            {
                reader.fail("transport", *setup.transport, "expected rma, msg or auto");
            }
            if (auto const allowed = reader.text("allow_initiators"))
            {
                try
                {
                    setup.allowInitiators = tools::parseAllowedInitiators(*allowed);
                }
                catch (std::invalid_argument const& bad)
                {
                    reader.fail("allow_initiators", *allowed, bad.what());
                }
            }
            if (auto const provider = reader.text("provider"))
            {
                auto const parsed = tools::parseProvider(*provider);
                if (!parsed || *parsed == MXL_FABRICS_PROVIDER_ANY)
                {
                    reader.fail("provider", *provider, "expected tcp, verbs, efa or shm");
                }
                config.provider = *parsed;
            }
            config.node = reader.text("node").value_or("");
            config.service = reader.text("service").value_or("");
            if (tools::usesPortNumbers(config.provider) && !config.service.empty() && !parsePort(config.service))
            {
                reader.fail("service", config.service,
                            fmt::format("{} needs a port number from 0 to 65535", tools::providerName(config.provider)));
            }
            if (auto const http = reader.text("http_listen"))
            {
                config.http = parseHttpListen(reader, *http);
            }
            auto const certificate = reader.text("http_tls_certificate");
            auto const privateKey = reader.text("http_tls_key");
            if (certificate || privateKey)
            {
                auto const* given = certificate ? "http_tls_certificate" : "http_tls_key";
                if (!config.http)
                {
                    reader.fail(given, *(certificate ? certificate : privateKey), "serves HTTPS on http_listen, which is not set");
                }
                if (!certificate || !privateKey)
                {
                    reader.missing(certificate ? "http_tls_key" : "http_tls_certificate",
                                   fmt::format("'{}' serves HTTPS, which needs both the certificate chain and its private key", given));
                }
                config.http->tls = TlsFiles{*certificate, *privateKey};
            }
            if (auto const issuer = reader.text("auth_server"))
            {
                if (!config.http && !reader.has("auth_client_id"))
                {
                    reader.fail("auth_server", *issuer,
                                "authorizes the requests to http_listen, which is not set, and gives no tokens without 'auth_client_id'");
                }
                if (!isHttpUrl(*issuer) || issuer->find("://") + 3 >= issuer->size())
                {
                    reader.fail("auth_server", *issuer, "expected the issuer URL, http[s]://host[:port][/path]");
                }
                config.authorization = Authorization{*issuer, reader.text("auth_audience").value_or(nmos::hostName()), false, {}, {}};
                if (auto const metrics = reader.text("auth_protect_metrics"))
                {
                    if (*metrics != "true" && *metrics != "false")
                    {
                        reader.fail("auth_protect_metrics", *metrics, "expected true or false");
                    }
                    config.authorization->protectMetrics = *metrics == "true";
                }
                if (auto const client = reader.text("auth_client_id"))
                {
                    auto const secretFile = reader.text("auth_client_secret_file");
                    if (!secretFile)
                    {
                        reader.missing("auth_client_secret_file", "'auth_client_id' needs the client's secret");
                    }
                    config.authorization->clientId = *client;
                    config.authorization->clientSecret = readSecret(reader, "auth_client_secret_file", *secretFile);
                }
            }
            else
            {
                for (auto const* key : {"auth_audience", "auth_protect_metrics", "auth_client_id", "auth_client_secret_file"})
                {
                    if (reader.has(key))
                    {
                        reader.fail(key, reader.all(key).front(), "only takes effect with 'auth_server'");
                    }
                }
            }
            if (auto const trust = reader.text("tls_ca_file"))
            {
                config.tlsCaFile = *trust;
                // The process's one client trusts it from here on; a service reads its configuration once.
                try
                {
                    setHttpsTrust(config.tlsCaFile);
                }
                catch (HttpsTrustError const& untrusted)
                {
                    reader.fail("tls_ca_file", config.tlsCaFile, untrusted.what());
                }
            }
            readEtcdAccess(reader);
            if (auto const registry = reader.text("nmos_registry"))
            {
                if (!config.http)
                {
                    reader.fail("nmos_registry", *registry, "registers the NMOS Node API, which needs 'http_listen'");
                }
                config.nmosRegistry = parseNmosRegistry(reader, *registry);
                auto const& parsed = *config.nmosRegistry;
                // Registries commonly serve their Query API beside the Registration API.
                auto prefix = parsed.apiPath.substr(0, parsed.apiPath.size() - registrationApi.size());
                config.nmosQuery = NmosQuery{parsed.origin + prefix + std::string{queryApi}, parsed.origin, prefix + std::string{queryApi}};
            }
            else if (reader.has("nmos_heartbeat_s"))
            {
                reader.fail("nmos_heartbeat_s", reader.all("nmos_heartbeat_s").front(), "only takes effect with 'nmos_registry'");
            }
            if (auto const query = reader.text("nmos_query"))
            {
                if (!config.http)
                {
                    reader.fail("nmos_query", *query, "serves receivers activated through the Connection API, which needs 'http_listen'");
                }
                config.nmosQuery = parseNmosQuery(reader, *query);
            }
            config.stallTimeout = reader.milliseconds("stall_timeout_ms", config.stallTimeout, 500, 600000);
            config.statusInterval = reader.milliseconds("status_interval_ms", config.statusInterval, 100, 60000);
            config.lateAfter = reader.milliseconds("late_after_ms", config.lateAfter, 1, 60000);
            if (auto const level = reader.text("log_level"))
            {
                if (*level == "debug")
                {
                    config.logLevel = LogLevel::Debug;
                }
                else if (*level == "info")
                {
                    config.logLevel = LogLevel::Info;
                }
                else if (*level == "warning")
                {
                    config.logLevel = LogLevel::Warning;
                }
                else
                {
                    reader.fail("log_level", *level, "expected debug, info or warning");
                }
            }

            if (config.role == Role::Initiator && reader.has("device"))
            {
                reader.fail("device", reader.all("device").front(),
                            "not a setting of an initiator: it sends the flow 'flow_id' names, wherever its payloads are (its log "
                            "line says where); 'device' places a target's flow");
            }
            auto const targetOnly = {"flow_definition", "flow_options",      "ticket_file", "etcd",       "etcd_domain",
                                     "etcd_lease_s",    "ticket_lifetime_s", "path",        "nmos_query", "allow_initiators"};
            auto const initiatorOnly = {"flow_id",       "ticket", "ticket_poll_ms", "connect_timeout_ms", "backoff_initial_ms",
                                        "backoff_max_ms"};
            for (auto const* key : config.role == Role::Target ? initiatorOnly : targetOnly)
            {
                if (reader.has(key))
                {
                    reader.fail(key, reader.all(key).front(),
                                fmt::format("not a setting of {}", config.role == Role::Target ? "a target" : "an initiator"));
                }
            }
            if (auto const keyFile = reader.text("ticket_key"))
            {
                try
                {
                    config.ticketKeys = signing::loadSigningKeys(*keyFile);
                }
                catch (signing::KeyFileError const& keyError)
                {
                    reader.fail("ticket_key", *keyFile, keyError.what());
                }
            }
            else if (reader.has("ticket_lifetime_s"))
            {
                reader.fail("ticket_lifetime_s", reader.all("ticket_lifetime_s").front(), "only takes effect with 'ticket_key'");
            }
            config.ticketLifetime = reader.seconds("ticket_lifetime_s", config.ticketLifetime, 60, 604800);
            if (auto const proof = reader.text("ticket_proof"))
            {
                if (*proof != "true" && *proof != "false")
                {
                    reader.fail("ticket_proof", *proof, "expected true or false");
                }
                if (*proof == "true")
                {
                    if (!config.ticketKeys)
                    {
                        reader.fail("ticket_proof", *proof, "only takes effect with 'ticket_key': the proof is made with its key");
                    }
                    setup.admissionKeyFile = reader.text("ticket_key");
                }
            }
            config.setupOptions = tools::setupOptionsText(setup);
            if (config.role == Role::Target)
            {
                readTargetKeys(reader, config);
            }
            else
            {
                readInitiatorKeys(reader, config);
            }
            return config;
        }
    }

    std::optional<ServiceConfig> loadServiceConfig(int argc, char const* const* argv)
    {
        auto const keys = settingKeys();
        po::options_description general{"General"};
        general.add_options()("help,h", "show this help")("config,c", po::value<std::string>(), "the instance's configuration file");
        po::options_description all;
        all.add(general).add(keys);

        Settings settings;
        po::parsed_options parsed{&all};
        try
        {
            parsed = po::command_line_parser(argc, argv).options(all).run();
        }
        catch (po::error const& error)
        {
            throw ConfigError{fmt::format("{}: {} (see --help)", commandLine, error.what())};
        }
        std::optional<std::string> configFile;
        for (auto const& option : parsed.options)
        {
            if (option.string_key == "help")
            {
                std::cout << "Usage: mxl-fabrics-service [--config FILE] [--key value ...]\n\n" << all << '\n';
                return std::nullopt;
            }
            if (option.string_key == "config" && !option.value.empty())
            {
                configFile = option.value.front();
            }
        }
        collect(parsed, commandLine, settings);

        std::string origin = commandLine;
        if (configFile)
        {
            origin = fmt::format("file '{}'", *configFile);
            std::istringstream file;
            try
            {
                file.str(readBoundedFile(*configFile));
            }
            catch (FileReadError const& error)
            {
                throw ConfigError{fmt::format("{}: option --config value '{}': {}", commandLine, *configFile, error.reason())};
            }
            try
            {
                collect(po::parse_config_file(file, keys), origin, settings);
            }
            catch (po::error const& error)
            {
                throw ConfigError{fmt::format("{}: {}", origin, error.what())};
            }
        }
        Reader reader{std::move(settings)};
        reader.setFallbackOrigin(origin);
        return readConfig(reader);
    }
}
