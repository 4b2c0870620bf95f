#include "ConfigValues.hpp"

#include <common/BoundedFile.hpp>
#include <common/SecretFile.hpp>

#include <DirectoryError.hpp>
#include <EtcdClient.hpp>
#include <HttpClient.hpp>
#include <HttpsTrust.hpp>
#include <client/FlowDescription.hpp>

#include <fmt/format.h>

#include <charconv>
#include <filesystem>

namespace mxl::service::config
{
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

    void checkHttpUrl(ConfigReader const& reader, std::string const& key, std::string const& url)
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

    HttpListen parseHttpListen(ConfigReader const& reader, std::string const& value)
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

    std::string readSecret(ConfigReader const& reader, char const* key, std::string const& path)
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

    void readEtcdAccess(ConfigReader const& reader)
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

    namespace
    {
        // An http[s]://host:port[/prefix][apiPath] URL as (origin, prefix + apiPath); `key` names it in messages.
        std::pair<std::string, std::string> parseNmosApiUrl(ConfigReader const& reader, char const* key, std::string const& url,
                                                            std::string_view apiPath, std::string_view what)
        {
            auto const expected =
                fmt::format("expected http://host:port or https://host:port of an {}, optionally ending in {}", what, apiPath);
            if (!isHttpUrl(url))
            {
                reader.fail(key, url, expected);
            }
            std::string_view const scheme = isHttpsUrl(url) ? "https://" : "http://";
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
    }

    NmosRegistry parseNmosRegistry(ConfigReader const& reader, std::string const& url)
    {
        auto [origin, apiPath] = parseNmosApiUrl(reader, "nmos_registry", url, registrationApi, "IS-04 Registration API");
        NmosRegistry registry{url, std::move(origin), std::move(apiPath)};
        registry.heartbeatInterval = reader.seconds("nmos_heartbeat_s", registry.heartbeatInterval, 1, 10);
        return registry;
    }

    NmosQuery parseNmosQuery(ConfigReader const& reader, std::string const& url)
    {
        auto [origin, apiPath] = parseNmosApiUrl(reader, "nmos_query", url, queryApi, "IS-04 Query API");
        return {url, std::move(origin), std::move(apiPath)};
    }

    bool isAbsolute(std::string const& path)
    {
        return !path.empty() && path.front() == '/';
    }

    std::string checkFlowDefinition(ConfigReader const& reader, std::string const& path)
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
        auto const description = client::tryParseFlowDescription(text);
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

    void checkParentDirectory(ConfigReader const& reader, std::string const& key, std::string const& path)
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
}
