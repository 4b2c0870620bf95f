// Bad configuration: each row is a config file or command line the service must refuse with exit code 78 and a
// message naming where the setting came from, the key and the value.
#include "Process.hpp"
#include "ServiceProcess.hpp"
#include "ServiceTestData.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

namespace mxl::test
{
    namespace
    {
        struct BadConfig
        {
            char const* name;
            // "target" or "initiator": which valid configuration the row starts from.
            char const* role;
            // Changes to it: a value, or nullopt to leave the key out.
            std::map<std::string, std::optional<std::string>> changes;
            // Lines appended to the file as they are.
            std::string extraLines;
            // Given on the command line instead of in the file.
            bool onCommandLine;
            // Every one must appear in the output; "{file}", "{dir}" are replaced.
            std::vector<std::string> expected;
        };

        std::string expand(std::string text, std::string const& file, std::string const& dir)
        {
            for (auto const& [key, value] : {std::pair{std::string{"{file}"}, file}, std::pair{std::string{"{dir}"}, dir}})
            {
                for (auto at = text.find(key); at != std::string::npos; at = text.find(key))
                {
                    text.replace(at, key.size(), value);
                }
            }
            return text;
        }
    }

    TEST_CASE("bad configurations are refused with exit code 78 naming the file, the key and the value")
    {
        TempDomain domain{"svc-config"};
        TempDomain files{"svc-config-files"};
        auto const dir = files.str();
        auto const notJson = files.path() / "not-json.json";
        std::ofstream{notJson} << "this is not json\n";
        auto const multiplexed = files.path() / "mux.json";
        auto const looseKey = files.path() / "loose.key";
        std::ofstream{looseKey} << R"({"id": "k", "key": "a2tra2tra2tra2tra2tra2tra2tra2tra2tra2tra2s="})";
        std::filesystem::permissions(looseKey, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write |
                                                   std::filesystem::perms::group_read | std::filesystem::perms::others_read);
        std::ofstream{multiplexed} << R"({"id": "0d6a7f3e-2b1c-4e5d-8f90-a1b2c3d4e5f6", "format": "urn:x-nmos:format:mux"})" << '\n';
        // Flow options that name another location, or another device, than 'device = 0'.
        std::ofstream{files.path() / "host.json"} << R"({"payloadLocation": "host"})";
        std::ofstream{files.path() / "device-1.json"} << R"({"payloadLocation": "device", "deviceIndex": 1})";
        // Definitions and options that are hostile rather than mistaken: nested past any sane depth, larger than any
        // definition, or accepted by the service's own check and refused by libmxl.
        std::ofstream{files.path() / "deep.json"} << std::string(500000, '[') << std::string(500000, ']');
        std::ofstream{files.path() / "big.json"} << "{\"label\": \"" << std::string(2 * 1024 * 1024, 'x') << "\"}";
        {
            std::ifstream in{serviceTestFlow()};
            std::stringstream definition;
            definition << in.rdbuf();
            auto wide = definition.str();
            wide.replace(wide.find("\"frame_width\": 320"), 18, "\"frame_width\": 100000");
            std::ofstream{files.path() / "wide.json"} << wide;
        }
        std::ofstream{files.path() / "array.json"} << "[1, 2]";

        std::map<std::string, std::map<std::string, std::string>> const valid{
            {"target",
             {{"role", "target"},
              {"domain", domain.str()},
              {"flow_definition", serviceTestFlow().string()},
              {"ticket_file", dir + "/t.json"}}},
            {"initiator", {{"role", "initiator"}, {"domain", domain.str()}, {"flow_id", serviceTestFlowId}, {"ticket", dir + "/t.json"}}},
        };

        std::vector<BadConfig> const table{
            {"unknown key", "target", {}, "colour = red\n", false, {"file '{file}'", "colour"}},
            {"line without =", "target", {}, "this line has no equals sign\n", false, {"file '{file}'", "this line has no equals sign"}},
            {"key given twice", "target", {}, "role = initiator\n", false, {"file '{file}'", "key 'role' is given twice", "'initiator'"}},
            {"unknown role", "target", {{"role", "sender"}}, "", false, {"file '{file}'", "key 'role' value 'sender'"}},
            {"no role", "target", {{"role", std::nullopt}}, "", false, {"file '{file}'", "key 'role' is missing"}},
            {"no domain", "target", {{"domain", std::nullopt}}, "", false, {"file '{file}'", "key 'domain' is missing"}},
            {"missing domain",
             "target",
             {{"domain", "/nonexistent/mxl-domain"}},
             "",
             false,
             {"file '{file}'", "key 'domain' value '/nonexistent/mxl-domain'", "not an existing directory"}},
            {"unknown provider", "target", {{"provider", "udp"}}, "", false, {"file '{file}'", "key 'provider' value 'udp'"}},
            {"port out of range", "target", {{"service", "70000"}}, "", false, {"file '{file}'", "key 'service' value '70000'"}},
            {"http_listen without port",
             "target",
             {{"http_listen", "localhost"}},
             "",
             false,
             {"file '{file}'", "key 'http_listen' value 'localhost'", "host:port"}},
            {"http_listen port out of range",
             "target",
             {{"http_listen", "127.0.0.1:99999"}},
             "",
             false,
             {"file '{file}'", "key 'http_listen' value '127.0.0.1:99999'"}},
            {"http_listen on a foreign address",
             "target",
             {{"http_listen", "203.0.113.7:0"}},
             "",
             false,
             {"file '{file}'", "key 'http_listen' value '203.0.113.7:0'", "cannot listen there"}},
            {"nmos_registry neither http nor https",
             "target",
             {{"http_listen", "127.0.0.1:0"}, {"nmos_registry", "ftp://registry.example:8235"}},
             "",
             false,
             {"file '{file}'", "key 'nmos_registry' value 'ftp://registry.example:8235'",
              "expected http://host:port or https://host:port of an IS-04 Registration API"}},
            {"nmos_registry port out of range",
             "target",
             {{"http_listen", "127.0.0.1:0"}, {"nmos_registry", "http://127.0.0.1:99999/x-nmos/registration/v1.3"}},
             "",
             false,
             {"file '{file}'", "key 'nmos_registry' value 'http://127.0.0.1:99999/x-nmos/registration/v1.3'"}},
            {"nmos_registry without http_listen",
             "initiator",
             {{"nmos_registry", "http://127.0.0.1:8235"}},
             "",
             false,
             {"file '{file}'", "key 'nmos_registry' value 'http://127.0.0.1:8235'", "needs 'http_listen'"}},
            {"nmos_query not http",
             "target",
             {{"http_listen", "127.0.0.1:0"}, {"nmos_query", "ftp://registry.example:8235"}},
             "",
             false,
             {"file '{file}'", "key 'nmos_query' value 'ftp://registry.example:8235'",
              "expected http://host:port or https://host:port of an IS-04 Query API"}},
            {"nmos_query without http_listen",
             "target",
             {{"nmos_query", "http://127.0.0.1:8235/x-nmos/query/v1.3"}},
             "",
             false,
             {"file '{file}'", "key 'nmos_query' value 'http://127.0.0.1:8235/x-nmos/query/v1.3'", "needs 'http_listen'"}},
            {"nmos_query on an initiator",
             "initiator",
             {{"http_listen", "127.0.0.1:0"}, {"nmos_query", "http://127.0.0.1:8235"}},
             "",
             false,
             {"file '{file}'", "key 'nmos_query' value 'http://127.0.0.1:8235'", "not a setting of an initiator"}},
            {"nmos heartbeat too long",
             "target",
             {{"http_listen", "127.0.0.1:0"}, {"nmos_registry", "http://127.0.0.1:8235"}, {"nmos_heartbeat_s", "12"}},
             "",
             false,
             {"file '{file}'", "key 'nmos_heartbeat_s' value '12'", "seconds from 1 to 10"}},
            {"nmos heartbeat without a registry",
             "target",
             {{"nmos_heartbeat_s", "2"}},
             "",
             true,
             {"the command line", "key 'nmos_heartbeat_s' value '2'", "only takes effect with 'nmos_registry'"}},
            {"node not on this host",
             "target",
             {{"node", "203.0.113.9"}},
             "",
             false,
             {"file '{file}'", "key 'node' value '203.0.113.9'", "no tcp interface"}},
            {"stall timeout not a number",
             "target",
             {{"stall_timeout_ms", "abc"}},
             "",
             false,
             {"file '{file}'", "key 'stall_timeout_ms' value 'abc'", "500 to 600000"}},
            {"stall timeout too short",
             "target",
             {{"stall_timeout_ms", "10"}},
             "",
             false,
             {"file '{file}'", "key 'stall_timeout_ms' value '10'"}},
            {"unknown log level", "target", {{"log_level", "loud"}}, "", false, {"file '{file}'", "key 'log_level' value 'loud'"}},
            {"etcd without port",
             "target",
             {{"etcd", "localhost"}},
             "",
             false,
             {"file '{file}'", "key 'etcd' value 'localhost'", "host:port"}},
            {"etcd domain with a slash",
             "target",
             {{"etcd", "127.0.0.1:2379"}, {"etcd_domain", "studio/a"}},
             "",
             false,
             {"file '{file}'", "key 'etcd_domain' value 'studio/a'", "hold no '/'"}},
            {"etcd lease too short",
             "target",
             {{"etcd", "127.0.0.1:2379"}, {"etcd_lease_s", "1"}},
             "",
             false,
             {"file '{file}'", "key 'etcd_lease_s' value '1'", "seconds from 2 to 3600"}},
            {"etcd lease without etcd",
             "target",
             {{"etcd_lease_s", "5"}},
             "",
             false,
             {"file '{file}'", "key 'etcd_lease_s'", "only takes effect with 'etcd'"}},
            {"etcd ticket without a key",
             "initiator",
             {{"ticket", "etcd://127.0.0.1:2379"}},
             "",
             false,
             {"file '{file}'", "key 'ticket' value 'etcd://127.0.0.1:2379'", "is not etcd://host:port/key"}},
            {"ticket key readable by others",
             "target",
             {{"ticket_key", looseKey.string()}},
             "",
             false,
             {"file '{file}'", "key 'ticket_key' value '{dir}/loose.key'", "has mode 0644", "chmod 600"}},
            {"ticket key missing",
             "initiator",
             {{"ticket_key", dir + "/absent.key"}},
             "",
             false,
             {"key 'ticket_key'", "absent.key': No such file or directory"}},
            {"HTTPS certificate without its key",
             "target",
             {{"http_listen", "127.0.0.1:0"}, {"http_tls_certificate", notJson.string()}},
             "",
             false,
             {"file '{file}'", "key 'http_tls_key' is missing", "needs both the certificate chain and its private key"}},
            {"HTTPS key readable by others",
             "target",
             {{"http_listen", "127.0.0.1:0"}, {"http_tls_certificate", notJson.string()}, {"http_tls_key", looseKey.string()}},
             "",
             false,
             {"file '{file}'", "keys 'http_tls_certificate' and 'http_tls_key'", "'{dir}/loose.key': it has mode 0644", "chmod 600"}},
            {"HTTPS without http_listen",
             "initiator",
             {{"http_listen", std::nullopt}, {"http_tls_certificate", notJson.string()}, {"http_tls_key", looseKey.string()}},
             "",
             false,
             {"file '{file}'", "key 'http_tls_certificate' value '{dir}/not-json.json'", "http_listen, which is not set"}},
            {"auth_server without http_listen",
             "initiator",
             {{"auth_server", "https://auth.example"}},
             "",
             false,
             {"file '{file}'", "key 'auth_server' value 'https://auth.example'", "http_listen, which is not set"}},
            {"auth_server not a URL",
             "target",
             {{"http_listen", "127.0.0.1:0"}, {"auth_server", "auth.example"}},
             "",
             false,
             {"key 'auth_server' value 'auth.example'", "expected the issuer URL, http[s]://host[:port][/path]"}},
            {"auth_audience without auth_server",
             "target",
             {{"auth_audience", "rx1.example"}},
             "",
             false,
             {"key 'auth_audience' value 'rx1.example'", "only takes effect with 'auth_server'"}},
            {"auth_protect_metrics not a boolean",
             "target",
             {{"http_listen", "127.0.0.1:0"}, {"auth_server", "https://auth.example"}, {"auth_protect_metrics", "yes"}},
             "",
             false,
             {"key 'auth_protect_metrics' value 'yes'", "expected true or false"}},
            {"client id without its secret",
             "initiator",
             {{"auth_server", "https://auth.example"}, {"auth_client_id", "tx1"}},
             "",
             false,
             {"file '{file}'", "key 'auth_client_secret_file' is missing", "'auth_client_id' needs the client's secret"}},
            {"client secret readable by others",
             "initiator",
             {{"auth_server", "https://auth.example"}, {"auth_client_id", "tx1"}, {"auth_client_secret_file", looseKey.string()}},
             "",
             false,
             {"key 'auth_client_secret_file' value '{dir}/loose.key'", "it has mode 0644", "chmod 600"}},
            {"etcd client certificate without etcd_tls",
             "target",
             {{"etcd_certificate", notJson.string()}, {"etcd_key", looseKey.string()}},
             "",
             false,
             {"key 'etcd_certificate' value '{dir}/not-json.json'", "only takes effect with 'etcd_tls = true'"}},
            {"allowed initiators not an address",
             "target",
             {{"allow_initiators", "198.51.100.0/24, rx.example"}},
             "",
             false,
             {"file '{file}'", "key 'allow_initiators' value '198.51.100.0/24, rx.example'",
              "'rx.example' is not an IPv4 or IPv6 address"}},
            {"allowed initiators with host bits past the prefix",
             "target",
             {{"allow_initiators", "198.51.100.7/24"}},
             "",
             false,
             {"key 'allow_initiators' value '198.51.100.7/24'", "write 198.51.100.0/24 for the subnet"}},
            {"allowed initiators on an initiator",
             "initiator",
             {{"allow_initiators", "198.51.100.0/24"}},
             "",
             false,
             {"key 'allow_initiators' value '198.51.100.0/24'", "not a setting of an initiator"}},
            {"ticket proof without a ticket key",
             "target",
             {{"ticket_proof", "true"}},
             "",
             false,
             {"file '{file}'", "key 'ticket_proof' value 'true'", "only takes effect with 'ticket_key'"}},
            {"ticket proof not a boolean",
             "initiator",
             {{"ticket_proof", "yes"}},
             "",
             false,
             {"key 'ticket_proof' value 'yes'", "expected true or false"}},
            {"etcd user without a password",
             "initiator",
             {{"etcd_user", "mxl"}},
             "",
             false,
             {"key 'etcd_password_file' is missing", "'etcd_user' needs the user's password"}},
            {"etcd password readable by others",
             "initiator",
             {{"etcd_user", "mxl"}, {"etcd_password_file", looseKey.string()}},
             "",
             false,
             {"key 'etcd_password_file' value '{dir}/loose.key'", "it has mode 0644"}},
            {"CA bundle that is not PEM",
             "initiator",
             {{"tls_ca_file", notJson.string()}},
             "",
             false,
             {"file '{file}'", "key 'tls_ca_file' value '{dir}/not-json.json'", "is not a PEM bundle of CA certificates"}},
            {"ticket lifetime without a key",
             "target",
             {{"ticket_lifetime_s", "600"}},
             "",
             false,
             {"key 'ticket_lifetime_s'", "only takes effect with 'ticket_key'"}},
            {"one path",
             "target",
             {{"path", "198.51.100.1"}},
             "",
             false,
             {"file '{file}'", "key 'path' value '198.51.100.1'", "exactly twice"}},
            {"three paths",
             "target",
             {{"path", "p1"}},
             "path = p2\npath = p3\n",
             false,
             {"file '{file}'", "key 'path' value 'p3'", "given 3 time(s)"}},
            {"the same path twice",
             "target",
             {{"path", "p1"}},
             "path = p1\n",
             false,
             {"file '{file}'", "key 'path' value 'p1'", "two different nodes"}},
            {"path with node",
             "target",
             {{"path", "p1"}, {"node", "127.0.0.1"}},
             "path = p2\n",
             false,
             {"file '{file}'", "key 'node' value '127.0.0.1'", "excludes 'path'"}},
            {"one ticket file for two paths",
             "target",
             {{"path", "p1"}},
             "path = p2\n",
             false,
             {"file '{file}'", "key 'ticket_file' value '{dir}/t.json'", "given 1 times for 2 paths"}},
            {"ticket file twice without paths",
             "target",
             {},
             "ticket_file = {dir}/u.json\n",
             false,
             {"file '{file}'", "key 'ticket_file'", "given 2 times; give it once"}},
            {"path on an initiator", "initiator", {{"path", "p1"}}, "", false, {"key 'path'", "not a setting of an initiator"}},
            {"ticket lifetime on an initiator",
             "initiator",
             {{"ticket_lifetime_s", "600"}},
             "",
             false,
             {"key 'ticket_lifetime_s'", "not a setting of an initiator"}},
            {"etcd on an initiator",
             "initiator",
             {{"etcd", "127.0.0.1:2379"}},
             "",
             false,
             {"file '{file}'", "key 'etcd'", "not a setting of an initiator"}},
            {"no flow definition",
             "target",
             {{"flow_definition", std::nullopt}},
             "",
             false,
             {"file '{file}'", "key 'flow_definition' is missing"}},
            {"flow definition missing",
             "target",
             {{"flow_definition", "/nonexistent/flow.json"}},
             "",
             false,
             {"file '{file}'", "key 'flow_definition' value '/nonexistent/flow.json'", "cannot read"}},
            {"flow definition not JSON",
             "target",
             {{"flow_definition", notJson.string()}},
             "",
             false,
             {"file '{file}'", fmt::format("key 'flow_definition' value '{}'", notJson.string()), "not a JSON object"}},
            {"flow definition is /dev/zero",
             "target",
             {{"flow_definition", "/dev/zero"}},
             "",
             false,
             {"file '{file}'", "key 'flow_definition' value '/dev/zero'", "it is a character device, not a regular file"}},
            {"flow definition is a directory",
             "target",
             {{"flow_definition", dir}},
             "",
             false,
             {"file '{file}'", "key 'flow_definition' value '{dir}'", "it is a directory, not a regular file"}},
            {"flow definition nested 500000 arrays deep",
             "target",
             {{"flow_definition", dir + "/deep.json"}},
             "",
             false,
             {"file '{file}'", "key 'flow_definition' value '{dir}/deep.json'", "not a JSON object"}},
            {"flow definition of 2 MiB",
             "target",
             {{"flow_definition", dir + "/big.json"}},
             "",
             false,
             {"file '{file}'", "key 'flow_definition' value '{dir}/big.json'", "more than the 1048576 accepted"}},
            {"flow definition libmxl refuses (frame_width 100000)",
             "target",
             {{"flow_definition", dir + "/wide.json"}},
             "",
             false,
             {"flow_definition '{dir}/wide.json'", "rejected"}},
            {"flow options not JSON",
             "target",
             {{"flow_options", notJson.string()}},
             "",
             false,
             {"file '{file}'", fmt::format("key 'flow_options' value '{}'", notJson.string()), "the file is not JSON"}},
            {"flow options a JSON array",
             "target",
             {{"flow_options", dir + "/array.json"}},
             "",
             false,
             {"file '{file}'", "key 'flow_options' value '{dir}/array.json'", "not a JSON object of flow options"}},
            {"flow options nested 500000 arrays deep",
             "target",
             {{"flow_options", dir + "/deep.json"}},
             "",
             false,
             {"file '{file}'", "key 'flow_options' value '{dir}/deep.json'", "nests deeper than 64 levels"}},
            {"flow options is /dev/zero",
             "target",
             {{"flow_options", "/dev/zero"}},
             "",
             false,
             {"file '{file}'", "key 'flow_options' value '/dev/zero'", "character device"}},
            {"etcd ticket port out of range",
             "initiator",
             {{"ticket", "etcd://127.0.0.1:99999/mxl/tickets/a/" + std::string{serviceTestFlowId}}},
             "",
             false,
             {"file '{file}'", "key 'ticket' value 'etcd://127.0.0.1:99999/", "the port '99999' is not a number from 1 to 65535"}},
            {"http ticket port out of range",
             "initiator",
             {{"ticket", "http://127.0.0.1:99999/ticket"}},
             "",
             false,
             {"file '{file}'", "key 'ticket' value 'http://127.0.0.1:99999/ticket'", "the port must be a number from 1 to 65535"}},
            {"http ticket without a path",
             "initiator",
             {{"ticket", "http://127.0.0.1:8470"}},
             "",
             false,
             {"file '{file}'", "key 'ticket' value 'http://127.0.0.1:8470'", "expected http://host:port/path"}},
            {"ticket file is /dev/zero",
             "initiator",
             {{"ticket", "/dev/zero"}},
             "",
             false,
             {"file '{file}'", "key 'ticket' value '/dev/zero'", "it is a character device, not a regular file"}},
            {"flow definition of another format",
             "target",
             {{"flow_definition", multiplexed.string()}},
             "",
             false,
             {"file '{file}'", fmt::format("key 'flow_definition' value '{}'", multiplexed.string()),
              "format 'urn:x-nmos:format:mux' is neither video, audio nor data"}},
            {"relative ticket file",
             "target",
             {{"ticket_file", "ticket.json"}},
             "",
             false,
             {"file '{file}'", "key 'ticket_file' value 'ticket.json'", "absolute"}},
            {"ticket directory missing",
             "target",
             {{"ticket_file", "/nonexistent/dir/t.json"}},
             "",
             false,
             {"file '{file}'", "key 'ticket_file' value '/nonexistent/dir/t.json'", "does not exist"}},
            {"initiator key on a target",
             "target",
             {{"flow_id", serviceTestFlowId}},
             "",
             false,
             {"file '{file}'", "key 'flow_id'", "not a setting of a target"}},
            {"flow id not a UUID",
             "initiator",
             {{"flow_id", "not-a-uuid"}},
             "",
             false,
             {"file '{file}'", "key 'flow_id' value 'not-a-uuid'"}},
            {"no ticket", "initiator", {{"ticket", std::nullopt}}, "", false, {"file '{file}'", "key 'ticket' is missing"}},
            {"ticket over ftp",
             "initiator",
             {{"ticket", "ftp://198.51.100.1/t.json"}},
             "",
             false,
             {"file '{file}'", "key 'ticket' value 'ftp://198.51.100.1/t.json'", "http://"}},
            {"back-off inverted",
             "initiator",
             {{"backoff_initial_ms", "5000"}, {"backoff_max_ms", "1000"}},
             "",
             false,
             {"file '{file}'", "key 'backoff_initial_ms' value '5000'", "backoff_max_ms"}},
            {"bad option on the command line",
             "initiator",
             {{"connect_timeout_ms", "-5"}},
             "",
             true,
             {"the command line", "key 'connect_timeout_ms' value '-5'"}},
            {"bad provider on the command line",
             "initiator",
             {{"provider", "carrier-pigeon"}},
             "",
             true,
             {"the command line", "key 'provider' value 'carrier-pigeon'"}},
            {"device not a number",
             "target",
             {{"device", "x"}},
             "",
             false,
             {"file '{file}'", "key 'device' value 'x'", "expected a CUDA device ordinal, an integer from 0 to 2147483647"}},
            {"device negative on the command line",
             "target",
             {{"device", "-1"}},
             "",
             true,
             {"the command line", "key 'device' value '-1'", "expected a CUDA device ordinal"}},
            {"device beyond the ordinals",
             "target",
             {{"device", "2147483648"}},
             "",
             false,
             {"file '{file}'", "key 'device' value '2147483648'", "expected a CUDA device ordinal"}},
            {"device against flow options in host memory",
             "target",
             {{"flow_options", dir + "/host.json"}, {"device", "0"}},
             "",
             false,
             {"file '{file}'", "key 'device' value '0'",
              R"(flow_options file '{dir}/host.json' has "payloadLocation": "host", but device 0 asks for "payloadLocation": "device")"}},
            {"device against flow options on another device",
             "target",
             {{"flow_options", dir + "/device-1.json"}, {"device", "0"}},
             "",
             false,
             {"file '{file}'", "key 'device' value '0'",
              R"(flow_options file '{dir}/device-1.json' has "deviceIndex": 1, but device 0 asks for "deviceIndex": 0)"}},
            {"device for an audio flow",
             "target",
             {{"flow_definition", serviceAudioFlow().string()}, {"device", "0"}},
             "",
             false,
             {"file '{file}'", "key 'device' value '0'", "is an audio flow, whose samples stay in host memory"}},
            {"device with redundant paths",
             "target",
             {{"device", "0"}},
             "path = 127.0.0.1\npath = 127.0.0.2\n",
             false,
             {"file '{file}'", "key 'device' value '0'", "does not combine with 'path'"}},
            {"device on an initiator",
             "initiator",
             {{"device", "0"}},
             "",
             false,
             {"file '{file}'", "key 'device' value '0'", "not a setting of an initiator", "wherever its payloads are"}},
        };
        CHECK(table.size() >= 15);

        int row = 0;
        for (auto const& bad : table)
        {
            auto const file = fmt::format("{}/case-{}.conf", dir, row++);
            auto settings = valid.at(bad.role);
            Settings commandLine;
            for (auto const& [key, value] : bad.changes)
            {
                if (bad.onCommandLine)
                {
                    commandLine.emplace_back(key, *value);
                }
                else if (value)
                {
                    settings[key] = *value;
                }
                else
                {
                    settings.erase(key);
                }
            }
            {
                std::ofstream out{file};
                for (auto const& [key, value] : settings)
                {
                    out << key << " = " << value << '\n';
                }
                out << bad.extraLines;
            }
            commandLine.insert(commandLine.begin(), {"config", file});
            ServiceProcess service{commandLine};
            auto const status = service.wait(std::chrono::seconds{10});
            auto const output = service.output();
            INFO("row: ", std::string{bad.name}, "\noutput: ", output);
            CHECK(status == std::optional<int>{78});
            for (auto const& expected : bad.expected)
            {
                CHECK(output.find(expand(expected, file, dir)) != std::string::npos);
            }
        }
    }

    TEST_CASE("an audio flow definition is accepted: the target receives into it and its ticket names a bounce buffer")
    {
        TempDomain domain{"svc-config-audio"};
        TempDomain files{"svc-config-audio-files"};
        auto const file = files.path() / "audio-target.conf";
        auto const ticket = files.path() / "t.json";
        std::ofstream{file} << "role = target\ndomain = " << domain.str() << "\nflow_definition = " << serviceAudioFlow().string()
                            << "\nticket_file = " << ticket.string() << "\nnode = 127.0.0.1\n";
        ServiceProcess service{{{"config", file.string()}}};
        auto const ready = service.waitForLine("ready: waiting for an initiator", std::chrono::seconds{10});
        INFO(service.output());
        REQUIRE(ready);
        CHECK(readFile(ticket).find("\"bounceBufferInfo\"") != std::string::npos);
        CHECK(std::filesystem::exists(domain.path() / fmt::format("{}.mxl-flow", serviceAudioFlowId)));
        service.signal(SIGTERM);
        CHECK(service.wait(std::chrono::seconds{5}) == std::optional<int>{0});
    }

    TEST_CASE("--help lists the target's optional 'device' key with its range and what it cannot combine with")
    {
        Process help{{ServiceProcess::binary(), "--help"}};
        auto const wrapped = help.drainOutput(std::chrono::seconds{10});
        INFO(wrapped);
        CHECK(help.wait(std::chrono::seconds{10}) == std::optional<int>{0});
        // The help is wrapped to the terminal's width wherever a word ends: read it unwrapped.
        std::string text;
        for (std::size_t at = 0; at < wrapped.size(); ++at)
        {
            if (wrapped[at] == '\n' && at + 1 < wrapped.size() && wrapped[at + 1] == ' ')
            {
                text += text.ends_with(' ') ? "" : " ";
                while (at + 1 < wrapped.size() && wrapped[at + 1] == ' ')
                {
                    ++at;
                }
                continue;
            }
            text += wrapped[at];
        }
        for (auto const* expected : {"--device arg", "target, optional: create the flow", "CUDA device N (0-2147483647", "with 'path'"})
        {
            CHECK(text.find(expected) != std::string::npos);
        }
    }

    TEST_CASE("a config file that is a device is refused at once with exit code 78, not read without end")
    {
        ServiceProcess service{{{"config", "/dev/zero"}}};
        auto const status = service.wait(std::chrono::seconds{10});
        auto const output = service.output();
        INFO(output);
        CHECK(status == std::optional<int>{78});
        CHECK(output.find("option --config value '/dev/zero': it is a character device, not a regular file") != std::string::npos);
    }

    TEST_CASE("a missing config file is refused with exit code 78 naming the option and the path")
    {
        ServiceProcess service{{{"config", "/nonexistent/mxl/service.conf"}}};
        auto const status = service.wait(std::chrono::seconds{10});
        auto const output = service.output();
        INFO(output);
        CHECK(status == std::optional<int>{78});
        CHECK(output.find("option --config value '/nonexistent/mxl/service.conf'") != std::string::npos);
    }
}
