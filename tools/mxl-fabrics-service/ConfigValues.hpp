// The values of a service's configuration that need more than a number: ports, HTTP URLs and listen addresses, secret
// files, etcd's access, NMOS registry and Query API URLs, flow definitions and paths. Each refusal goes through the
// reader, naming the source, the key and the value.
#pragma once

#include "ConfigReader.hpp"
#include "ServiceConfig.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mxl::service::config
{
    [[nodiscard]] std::optional<std::uint16_t> parsePort(std::string_view text);
    // http[s]://host:port/path with a port from 1 to 65535 (an IPv6 host in brackets); what the HTTP clients can reach.
    void checkHttpUrl(ConfigReader const& reader, std::string const& key, std::string const& url);
    // "host:port" or "[v6-host]:port", port 0 for any free one.
    [[nodiscard]] HttpListen parseHttpListen(ConfigReader const& reader, std::string const& value);
    // The text of a secret file (a password), without its line end.
    [[nodiscard]] std::string readSecret(ConfigReader const& reader, char const* key, std::string const& path);
    // How this process reaches etcd (lib/directory's EtcdAccess, and the client certificate the HTTP client presents):
    // set for the process here, as the trust is; a service reads its configuration once.
    void readEtcdAccess(ConfigReader const& reader);
    // The paths of the IS-04 APIs a registry serves, after its URL's prefix.
    inline constexpr std::string_view registrationApi = "/x-nmos/registration/v1.3";
    inline constexpr std::string_view queryApi = "/x-nmos/query/v1.3";

    // http[s]://host[:port][/prefix], with or without the API's own path.
    [[nodiscard]] NmosRegistry parseNmosRegistry(ConfigReader const& reader, std::string const& url);
    [[nodiscard]] NmosQuery parseNmosQuery(ConfigReader const& reader, std::string const& url);
    [[nodiscard]] bool isAbsolute(std::string const& path);
    // A definition the flow library would refuse later is refused here, with the key that names it. Returns the
    // definition's format.
    [[nodiscard]] std::string checkFlowDefinition(ConfigReader const& reader, std::string const& path);
    // An absolute path whose directory exists.
    void checkParentDirectory(ConfigReader const& reader, std::string const& key, std::string const& path);
}
