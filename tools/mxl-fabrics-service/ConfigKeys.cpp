#include "ConfigKeys.hpp"

#include <boost/program_options.hpp>

namespace mxl::service::config
{
    namespace po = boost::program_options;

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
        add("http_listen", "host:port of the HTTP endpoint (/ticket on targets, /metrics and the NMOS Node and Connection APIs on both); "
                           "port 0 = any free port");
        add("http_tls_certificate",
            "both, with http_listen and http_tls_key: PEM certificate chain (the leaf first) to serve HTTPS with (TLS 1.2 and "
            "1.3 only, AMWA BCP-003-01) in place of plain HTTP; read again with the key on SIGHUP, without dropping a grain or a "
            "connection");
        add("http_tls_key", "both, with http_tls_certificate: its PEM private key (mode 0600)");
        add("tls_ca_file", "both: PEM bundle of the certificate authorities that https:// servers this service calls (registry, "
                           "Query API, ticket URLs, IS-05 hand-overs) must be signed by (default: the system's, "
                           "/etc/ssl/certs); their certificate must also name the host or address in the URL");
        add("auth_server", "both: issuer URL (http[s]://host[:port][/path]) of the facility's AMWA IS-10 authorization server: "
                           "every request to the Node and Connection APIs and /ticket needs a bearer access token it signed (RS512; its "
                           "keys come from its RFC 8414 metadata's jwks_uri) that names this node in \"aud\" and permits the request in "
                           "its x-nmos-* claims; /ticket needs write permission to the receiver's single/receivers/<id>/staged");
        add("auth_audience", "both, with auth_server: the name this node identifies itself with in tokens' \"aud\" (default: the "
                             "host's name)");
        add("auth_client_id", "both, with an https:// auth_server: the service's client id at the authorization server: every https:// "
                              "request it makes (registration, tickets, IS-05 hand-overs) carries an access token of this client "
                              "(client credentials grant, client_secret_basic)");
        add("auth_client_secret_file", "both, with auth_client_id: file holding the client's secret (mode 0600)");
        add("auth_protect_metrics", "both, with auth_server: true: /metrics needs read permission to the Node API's 'self' too "
                                    "(default false: open to scrapers)");
        add("nmos_registry", "both, with http_listen: http://host:port of an AMWA IS-04 v1.3 Registration API to register the Node API's "
                             "resources with; /x-nmos/registration/v1.3 is appended unless the URL ends with it (no DNS-SD discovery)");
        add("nmos_query", "target, with http_listen: http://host:port of an AMWA IS-04 v1.3 Query API (default: nmos_registry's host and "
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
        add("etcd", "target: host:port of an etcd client URL to publish the ticket in, under a lease (the facility's ticket directory)");
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
            "the flow's memory, logged once per address and reason and counted in /metrics (default: any initiator)");
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
        keys.add_options()("ticket", po::value<std::vector<std::string>>(),
                           "initiator: ticket file path, http://host:port/ticket URL or etcd://host:port/mxl/tickets/<domain>/<flow id> "
                           "key; repeat to give fallbacks; none (with http_listen): wait for an IS-05 activation");
        add("ticket_poll_ms", "initiator: how often the ticket is fetched again to see a new epoch (100-60000, default 1000)");
        add("connect_timeout_ms",
            "initiator: a ticket that gives no connection for this long is reported stale (500-600000, default 10000)");
        add("backoff_initial_ms", "initiator: first wait before re-establishing (10-60000, default 200)");
        add("backoff_max_ms", "initiator: longest wait between attempts (10-600000, default 5000)");
        return keys;
    }
}
