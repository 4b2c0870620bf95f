#include "ServiceConfig.hpp"

#include "ConfigKeys.hpp"
#include "ConfigReader.hpp"
#include "ConfigValues.hpp"

#include <common/BoundedFile.hpp>
#include <common/BoundedJson.hpp>

#include <DirectoryError.hpp>
#include <EtcdClient.hpp>
#include <HostName.hpp>
#include <HttpClient.hpp>
#include <HttpsTrust.hpp>
#include <SigningKeys.hpp>
#include <TicketKey.hpp>
#include <ToolError.hpp>
#include <client/DeviceFlowOptions.hpp>
#include <client/FabricsBackend.hpp>
#include <client/FabricsInterfaceChoice.hpp>
#include <client/FabricsInterfaces.hpp>
#include <client/FlowId.hpp>
#include <client/SetupOptionsText.hpp>
#include <client/TextFile.hpp>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <sstream>

namespace mxl::service
{
    namespace
    {
        namespace po = boost::program_options;
        using namespace config;

        constexpr char const* commandLine = "the command line";

        void readEtcdKeys(ConfigReader const& reader, ServiceConfig& config, std::string const& endpoint)
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
        void readPathKeys(ConfigReader const& reader, ServiceConfig& config)
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
        void readDeviceKey(ConfigReader const& reader, ServiceConfig& config, std::string const& device, std::string const& optionsFile,
                           std::string const& format)
        {
            auto const index = client::parseDeviceIndex(device);
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
                config.writerOptions = client::withDeviceOptions(config.writerOptions, fmt::format("flow_options file '{}'", optionsFile),
                                                                 *index, fmt::format("device {}", *index));
            }
            catch (client::DeviceOptionsConflict const& conflict)
            {
                reader.fail("device", device, conflict.what());
            }
        }

        void readTargetKeys(ConfigReader const& reader, ServiceConfig& config)
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
                    config.writerOptions = client::readTextFile(*options, "flow options");
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

        void readInitiatorKeys(ConfigReader const& reader, ServiceConfig& config)
        {
            auto const flowId = reader.required("flow_id", "an initiator needs the UUID of the local flow it sends");
            auto const canonical = client::canonicalFlowId(flowId);
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

        ServiceConfig readConfig(ConfigReader const& reader)
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
            client::SetupSettings setup;
            setup.transport = reader.text("transport");
            if (setup.transport && *setup.transport != "rma" && *setup.transport != "msg" && *setup.transport != "auto")
            {
                reader.fail("transport", *setup.transport, "expected rma, msg or auto");
            }
            if (auto const allowed = reader.text("allow_initiators"))
            {
                try
                {
                    setup.allowInitiators = client::parseAllowedInitiators(*allowed);
                }
                catch (std::invalid_argument const& bad)
                {
                    reader.fail("allow_initiators", *allowed, bad.what());
                }
            }
            if (auto const provider = reader.text("provider"))
            {
                auto const parsed = client::parseProvider(*provider);
                if (!parsed || *parsed == MXL_FABRICS_PROVIDER_ANY)
                {
                    reader.fail("provider", *provider, "expected tcp, verbs, efa or shm");
                }
                config.provider = *parsed;
            }
            config.node = reader.text("node").value_or("");
            config.service = reader.text("service").value_or("");
            if (client::usesPortNumbers(config.provider) && !config.service.empty() && !parsePort(config.service))
            {
                reader.fail("service", config.service,
                            fmt::format("{} needs a port number from 0 to 65535", client::providerName(config.provider)));
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
                config.authorization =
                    Authorization{lowercaseScheme(*issuer), reader.text("auth_audience").value_or(nmos::hostName()), false, {}, {}};
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
                    if (!isHttpsUrl(*issuer))
                    {
                        reader.fail("auth_server", *issuer,
                                    "expected an https:// issuer, as 'auth_client_id' sends the client's secret to its token endpoint");
                    }
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
            // The service always has its target's current ticket to hand: a stale one is better refused than connected.
            setup.incarnationMark = config.role == Role::Initiator;
            config.setupOptions = client::setupOptionsText(setup);
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
        ConfigReader reader{std::move(settings)};
        reader.setFallbackOrigin(origin);
        return readConfig(reader);
    }
}
