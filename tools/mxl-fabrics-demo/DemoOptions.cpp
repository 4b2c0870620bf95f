#include "DemoOptions.hpp"

#include "ToolError.hpp"
#include <client/TextFile.hpp>

#include <client/DeviceFlowOptions.hpp>
#include <client/FabricsBackend.hpp>
#include <client/FabricsInterfaces.hpp>
#include <client/SetupOptionsText.hpp>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>

namespace mxl::demo
{
    namespace po = boost::program_options;

    namespace
    {
        constexpr char const* synopsis = R"(Usage:
  mxl-fabrics-demo -d DOMAIN -f FLOW.json [-n NODE] [-s SERVICE] [-p PROVIDER] [-t FILE]      (target)
  mxl-fabrics-demo -i -d DOMAIN -f FLOW-ID -t TICKET [-t TICKET...] [-n NODE] [-p PROVIDER]   (initiator)
  mxl-fabrics-demo -d DOMAIN -f FLOW.json --path NODE --path NODE [-s SERVICE] [-p PROVIDER]  (redundant target)
  mxl-fabrics-demo -d DOMAIN -f V.json -f A.json -f D.json ... [-t FILE -t FILE -t FILE ...]   (source target)
  mxl-fabrics-demo -i -d DOMAIN -f V-ID -f A-ID -f D-ID ... -t TICKET -t TICKET -t TICKET ...  (source initiator)
  mxl-fabrics-demo -d DOMAIN -g GROUP -f A.json -f V.json ...          (source target, flows in group order)
  mxl-fabrics-demo -i -d DOMAIN -g GROUP -t TICKET -t TICKET ...       (source initiator: the group's flows)

Moves an MXL flow between two domains (hosts) over libfabric, or the fabrics backend --backend names
(both ends the same). The target creates the flow from its
definition, registers its memory and prints "Target info: <base64>", the ticket the initiator needs.
The initiator reads grains from its local flow at the flow's grain rate and writes them into every
target it was given, by remote memory write. Audio flows move in batches of the flow's commit hint,
paced by sample index on the TAI clock.

Several -f carry several flows of one source (video, its audio, its data): each flow gets its own
fabric endpoint and thread (flow i of a target listens on SERVICE + i, or SERVICE-i for a name). The
target prints one "Target flow:" and "Target info:" pair per flow, in -f order (with -t, one ticket
file per flow, in the same order); the initiator takes one ticket per flow, paired with its -f in
order. A target with several flows also reads them together through a flow synchronization group,
keyed on its first video or data flow, and prints a "sync:" line per grain.

-g GROUP chooses the flows by NMOS group hint instead of by order: the initiator sends every flow of
its domain whose grouphint is GROUP:<role>, the target checks that its -f definitions all are, and
both take them in group order (video, audio, data; each kind by role, then flow id), printing one
"Group member:" line per flow, so that the target's tickets, copied in the order printed, pair up.
)";

        constexpr char const* epilogue = R"(
Output (stdout, one line each):
  Selected interface: provider P node N service S capabilities C max-message M
  Group member: N <uuid> <role> <format>                                      (with -g, per flow, in group order)
  Target flow: <uuid> (payloads in host memory | payloads on CUDA device N)  (target; with --path: the merged flow)
  Initiator flow: <uuid> (payloads in host memory | payloads on CUDA device N) (initiator, per flow it reads)
  Transport: rma | msg                                                        (target before its Target info;
        initiator once its tickets were added: the transport of its tickets)
  Target info: <base64 of the ticket JSON>                                    (target)
  sync: grain=I video_ts=T skews_us=S1,S2,... batch_us=B                      (source target, per grain:
        for each audio flow, its newest sample's time minus the grain's, when the group returned)
  connected to T target(s)                                                    (initiator)
  target N: connected | target N: disconnected: <reason>                      (initiator, on changes)
  target N: lagging: ... | target N: caught up (K transfer(s) skipped so far) (initiator, on changes: a target
        whose writes stop completing, e.g. a stopped process, is skipped so that it does not hold back the others;
        after 1 s without a completion it counts as disconnected)
  stats: grains=G bytes=B rate=R ...                                          (every second)
  summary: received G grains, B bytes, L lost                                 (target, at exit)
  summary: moved G grains, B bytes, L lost, latency avg A us, max M us, skipped S1,S2,..., invalidated I1,I2,...
        (initiator, at exit; L: grains no target got; Si: transfers target i missed, in -t order; Ii: transfers
        target i got flagged invalid, or not at all for audio, because the source overwrote them before that
        target read them; the stats line carries the same as lost=, skipped= and invalidated=)

Redundant paths (target, --path NODE twice): each path gets a private flow of the same definition
(in a hidden directory of DOMAIN, removed at exit) and a fabrics target on it; the target prints
"Path N: node NODE" and then its "Target info:" line, path 1 first. The initiator, given both tickets,
sends every grain over both. The first complete arrival of each grain index is copied into the flow;
later ones are "late". Grains are taken whole from one path, never slices of two. Audio: the flow is
extended from the first path holding the samples after its head; samples no path has are passed over
(zeroed) once every path went past them or one path is a quarter ring ahead, and counted as lost.
  paths: first=F1,F2 late=L1,L2 missing=M1,M2 dropped=D1,D2                  (target with --path, after each
        stats: line and at exit: per path, grains (audio: samples) it delivered first, after the other path, not
        at all (that the other path delivered), and first ones whose copy was dropped because the path flow's
        slot (audio: ring) moved on)

SIGINT or SIGTERM ends the current grain, disconnects and prints the summary.
Per-grain lines are logged on stderr with MXL_LOG_LEVEL=debug.

Exit status:
  0  stopped by SIGINT/SIGTERM or after --count grains
  1  runtime failure: setup (e.g. port in use), every target lost or no grain delivered for --connect-timeout,
     source flow deleted, a fabric or flow call failed
  2  bad input: command line, unknown provider, node not on this host, service not a port, unreadable or invalid
     flow definition, unknown flow id, malformed ticket, ticket that does not fit the flow (grain size), stale
     ticket (no connection within --connect-timeout, or no grain ever taken)
)";

        po::options_description describeOptions()
        {
            po::options_description options{"Options"};
            options.add_options()                                                                              //
                ("help,h", "print this help and exit")                                                         //
                ("domain,d", po::value<std::string>()->value_name("DIR"), "MXL domain directory (must exist)") //
                ("flow,f", po::value<std::vector<std::string>>()->value_name("FLOW"),
                 "target: NMOS flow definition file; initiator: id of the flow to send; repeat for several flows of one source") //
                ("group,g", po::value<std::string>()->value_name("NAME"),
                 "the flows of NMOS group NAME (grouphint NAME:<role>), in group order: video, audio, data, each kind by role, "
                 "then flow id. Initiator: every flow of the domain in the group, instead of -f. Target: the -f definitions, "
                 "which must all be in the group, taken in group order. Tickets are printed and taken in that order") //
                ("flow-options", po::value<std::string>()->value_name("FILE"),
                 "target: flow writer options JSON file (maxCommitBatchSizeHint, maxSyncBatchSizeHint)") //
                ("device", po::value<std::string>()->value_name("N"),
                 "target: create video and data flows with their payloads in the memory of CUDA device N (0-2147483647, the "
                 "ordinal in this process after CUDA_VISIBLE_DEVICES): {\"payloadLocation\": \"device\", \"deviceIndex\": N} is "
                 "merged into the --flow-options, which must not name another location or device; audio flows stay in host "
                 "memory. Not with --path (the paths are merged in host memory) nor -i (the initiator sends the flow that "
                 "exists, wherever its payloads are). Needs a libmxl with CUDA and the GPU (docs/device-flows.md); the "
                 "payloads arrive straight in device memory where the interface registers it (CAP_HMEM), else staged through "
                 "pinned host memory, as the log says; $MXL_FABRICS_DEVICE_PAYLOADS (auto, direct or staged) chooses") //
                ("initiator,i", po::bool_switch(), "run as initiator (default: target)")                               //
                ("node,n", po::value<std::string>()->value_name("NODE"),
                 "local address to bind: IP for tcp/verbs, GID for efa, a name for shm; also filters the interface choice") //
                ("path", po::value<std::vector<std::string>>()->value_name("NODE"),
                 "target: a redundant path, given exactly twice: one fabrics target per path (NODE: its listen address for "
                 "tcp/verbs, any label for shm; -s applies to both), one ticket per path, and each grain index (audio: each "
                 "sample) committed into the flow from the first path that delivers it complete (see Redundant paths below)") //
                ("service,s", po::value<std::string>()->value_name("SERVICE"),
                 "port (tcp/verbs, 0 = any free port) or name (shm) to listen on; without -n the selected interface's node is "
                 "used with it, as in the SDK's demo (-p shm -s 28343 names the endpoint <host>:28343)") //
                ("provider,p", po::value<std::string>()->value_name("PROVIDER"),
                 "tcp, verbs, efa or shm; default: the target picks efa > verbs > tcp > shm among this host's interfaces, "
                 "the initiator uses its ticket's provider") //
                ("backend", po::value<std::string>()->value_name("NAME"),
                 "fabrics backend (transport) to load, libmxl-fabrics-NAME.so: ofi or ucx (docs/fabrics-backends.md; "
                 "default: $MXL_FABRICS_BACKEND, else ofi); target and initiator must use the same one: an initiator "
                 "refuses a ticket of another backend") //
                ("transport", po::value<std::string>()->value_name("rma|msg|auto"),
                 "how writes travel (docs/fabrics.md, Send/receive transport): rma (remote writes, the SDK's wire), msg "
                 "(sends into receive buffers the target places; needs this library at both ends) or auto (rma where the "
                 "provider has it, else msg, with a warning); default: $MXL_FABRICS_TRANSPORT, else auto. Target: its "
                 "ticket says msg; initiator: must match the ticket's (auto does, on the same provider)") //
                ("target-info,t", po::value<std::vector<std::string>>()->value_name("TICKET"),
                 "target: also write the ticket JSON to this file ('@FILE' works too); initiator: the base64 ticket, "
                 "@FILE for its JSON, or etcd://HOST:PORT/KEY for the ticket a target service publishes in etcd; repeat for several "
                 "targets") //
                ("ticket-key", po::value<std::string>()->value_name("FILE"),
                 "key file (JSON, mode 0600; docs/operations.md) both ends share: the target signs its tickets with it, the "
                 "initiator refuses tickets not signed with it (forged, altered, expired, another key, unsigned)") //
                ("ticket-proof", po::bool_switch(),
                 "with --ticket-key, tcp and verbs: the initiator proves in its connection requests that it holds the key (a MAC "
                 "over the target's epoch); the target refuses requests without that proof before they reach the flow's memory. "
                 "An extension of this implementation: MXL SDK peers neither send nor ask it") //
                ("ticket-lifetime", po::value<std::uint32_t>()->value_name("SECONDS"),
                 "target, with --ticket-key: the signed ticket expires this long after it was printed (60-604800, default 3600)") //
                ("allow-initiators", po::value<std::string>()->value_name("LIST"),
                 "target (tcp, verbs): addresses and prefixes, separated by commas (198.51.100.0/24,192.0.2.7), of the only "
                 "initiators whose connections it accepts; any other is refused before it reaches the flow's memory and logged "
                 "once per address and reason (default: any initiator)")                                               //
                ("count", po::value<std::uint64_t>()->value_name("N"), "stop after N grains (0 = run until a signal)") //
                ("connect-timeout", po::value<double>()->value_name("SECONDS"),
                 "initiator: how long targets may take to accept the connection, a lost target to come back, or grains to go "
                 "undelivered before giving up (default 10)");
            return options;
        }

        // Replaces the flows by the group's members, in group order.
        void selectGroup(DemoOptions& options)
        {
            if (options.initiator && !options.flows.empty())
            {
                tools::badInput("the initiator takes -f/--flow or -g/--group, not both");
            }
            if (!options.initiator && options.flows.empty())
            {
                tools::badInput("-g/--group on a target orders and checks its flow definitions: give them with -f/--flow");
            }
            options.groupMembers =
                options.initiator ? groupFlowsInDomain(options.domain, options.group) : groupDefinitions(options.flows, options.group);
            options.flows.clear();
            for (auto const& member : options.groupMembers)
            {
                options.flows.push_back(member.origin);
            }
            options.flow = options.flows.front();
        }

        // --path: two paths of one target, which takes its nodes from them and prints its tickets.
        void checkPaths(DemoOptions const& options)
        {
            if (options.initiator)
            {
                tools::badInput("--path applies to the target only: give the initiator both tickets with -t");
            }
            if (options.paths.size() != 2)
            {
                tools::badInput("--path was given {} time(s); redundant paths need it exactly twice, one listen address (tcp) or "
                                "label (shm) per path",
                                options.paths.size());
            }
            if (options.paths[0] == options.paths[1])
            {
                tools::badInput("--path '{}' was given twice: the two paths need two different nodes", options.paths[0]);
            }
            if (options.flows.size() != 1)
            {
                tools::badInput("--path takes one flow, not {}", options.flows.size());
            }
            if (!options.node.empty())
            {
                tools::badInput("-n/--node '{}' and --path exclude each other: each --path names its own node", options.node);
            }
            if (!options.targetInfo.empty())
            {
                tools::badInput("-t/--target-info with --path: a redundant target prints one ticket per path and writes none");
            }
        }

        std::string optionalString(po::variables_map const& values, char const* name)
        {
            return values.count(name) != 0 ? values[name].as<std::string>() : std::string{};
        }

        // --device: checked against the role, the paths and the --flow-options before anything is created.
        void readDevice(DemoOptions& options, std::string const& text)
        {
            auto const index = client::parseDeviceIndex(text);
            if (!index)
            {
                tools::badInput("--device '{}' is not a CUDA device ordinal (expected an integer from 0 to 2147483647)", text);
            }
            if (options.initiator)
            {
                tools::badInput("--device applies to the target only: the initiator sends the flow that exists, wherever its payloads "
                                "are (its \"Initiator flow:\" line says where)");
            }
            if (!options.paths.empty())
            {
                tools::badInput("--device {} does not combine with --path: the redundant paths are merged in host memory", *index);
            }
            try
            {
                options.deviceFlowOptions =
                    client::withDeviceOptions(options.flowOptions, fmt::format("flow options file '{}'", options.flowOptionsFile), *index,
                                              fmt::format("--device {}", *index));
            }
            catch (client::DeviceOptionsConflict const& conflict)
            {
                tools::badInput("{}", conflict.what());
            }
            options.deviceIndex = index;
        }
    }

    std::optional<DemoOptions> parseDemoOptions(int argc, char** argv)
    {
        auto const description = describeOptions();
        po::variables_map values;
        try
        {
            po::store(po::command_line_parser{argc, argv}.options(description).run(), values);
            po::notify(values);
        }
        catch (po::error const& error)
        {
            tools::badInput("{} (see --help)", error.what());
        }
        if (values.count("help") != 0)
        {
            std::ostringstream text;
            text << synopsis << '\n' << description << epilogue;
            std::cout << text.str() << std::flush;
            return std::nullopt;
        }

        DemoOptions options;
        options.domain = optionalString(values, "domain");
        if (values.count("flow") != 0)
        {
            options.flows = values["flow"].as<std::vector<std::string>>();
            options.flow = options.flows.front();
        }
        options.flowOptionsFile = optionalString(values, "flow-options");
        if (!options.flowOptionsFile.empty())
        {
            options.flowOptions = client::readTextFile(options.flowOptionsFile, "flow options");
        }
        options.initiator = values["initiator"].as<bool>();
        options.node = optionalString(values, "node");
        options.service = optionalString(values, "service");
        if (values.count("path") != 0)
        {
            options.paths = values["path"].as<std::vector<std::string>>();
        }
        options.backend = optionalString(values, "backend");
        if (auto const transport = optionalString(values, "transport"); !transport.empty())
        {
            if (transport != "rma" && transport != "msg" && transport != "auto")
            {
                tools::badInput("unknown transport '{}' (expected rma, msg or auto)", transport);
            }
            // The library's default for setup options that name no transport: the target and the initiator of this
            // process take it without any option string of their own.
            ::setenv("MXL_FABRICS_TRANSPORT", transport.c_str(), 1);
        }
        if (auto const provider = optionalString(values, "provider"); !provider.empty())
        {
            auto const parsed = client::parseProvider(provider);
            if (!parsed || *parsed == MXL_FABRICS_PROVIDER_ANY)
            {
                tools::badInput("unknown provider '{}' (expected tcp, verbs, efa or shm)", provider);
            }
            options.provider = *parsed;
        }
        if (values.count("target-info") != 0)
        {
            options.targetInfo = values["target-info"].as<std::vector<std::string>>();
        }
        if (values.count("ticket-key") != 0)
        {
            try
            {
                options.ticketKeyFile = values["ticket-key"].as<std::string>();
                options.ticketKeys = signing::loadSigningKeys(options.ticketKeyFile);
            }
            catch (signing::KeyFileError const& error)
            {
                tools::badInput("--ticket-key: {}", error.what());
            }
        }
        if (values["ticket-proof"].as<bool>())
        {
            if (!options.ticketKeys)
            {
                tools::badInput("--ticket-proof needs --ticket-key: the proof is made with its key");
            }
            options.ticketProof = true;
        }
        if (values.count("ticket-lifetime") != 0)
        {
            auto const seconds = values["ticket-lifetime"].as<std::uint32_t>();
            if (!options.ticketKeys || seconds < 60 || seconds > 604800)
            {
                tools::badInput("--ticket-lifetime {}: give 60 to 604800 seconds, with --ticket-key", seconds);
            }
            options.ticketLifetime = std::chrono::seconds{seconds};
        }
        if (values.count("allow-initiators") != 0)
        {
            if (options.initiator)
            {
                tools::badInput("--allow-initiators applies to the target only: it screens the initiators that connect to it");
            }
            try
            {
                options.allowInitiators = client::parseAllowedInitiators(values["allow-initiators"].as<std::string>());
            }
            catch (std::invalid_argument const& bad)
            {
                tools::badInput("--allow-initiators: {}", bad.what());
            }
        }
        if (values.count("count") != 0)
        {
            options.count = values["count"].as<std::uint64_t>();
        }
        if (values.count("connect-timeout") != 0)
        {
            options.connectTimeoutSeconds = values["connect-timeout"].as<double>();
        }

        if (options.domain.empty())
        {
            tools::badInput("missing -d/--domain (see --help)");
        }
        if (!std::filesystem::is_directory(options.domain))
        {
            tools::badInput("domain '{}' is not an existing directory", options.domain);
        }
        options.group = optionalString(values, "group");
        if (!options.group.empty())
        {
            selectGroup(options);
        }
        if (options.flow.empty())
        {
            tools::badInput("missing -f/--flow: {} (see --help)",
                            options.initiator ? "the id of the flow to send (or -g/--group)" : "the flow definition file");
        }
        if (options.initiator)
        {
            if (options.targetInfo.empty())
            {
                tools::badInput("the initiator needs -t/--target-info: the ticket a target printed (see --help)");
            }
            if (!options.flowOptionsFile.empty())
            {
                tools::badInput("--flow-options applies to the target only: the initiator reads an existing flow");
            }
            if (!(options.connectTimeoutSeconds > 0.0 && options.connectTimeoutSeconds <= 3600.0))
            {
                tools::badInput("--connect-timeout {} is out of range (expected more than 0 and at most 3600 seconds)",
                                options.connectTimeoutSeconds);
            }
        }
        if (options.flows.size() > 1 && options.targetInfo.size() != options.flows.size() &&
            (options.initiator || !options.targetInfo.empty()))
        {
            tools::badInput("{} flows need {} -t/--target-info, one per -f in the same order, not {}", options.flows.size(),
                            options.flows.size(), options.targetInfo.size());
        }
        if (!options.initiator && options.flows.size() == 1 && options.targetInfo.size() > 1)
        {
            tools::badInput("a target writes one ticket file, but -t/--target-info was given {} times", options.targetInfo.size());
        }
        if (!options.paths.empty())
        {
            checkPaths(options);
        }
        if (values.count("device") != 0)
        {
            readDevice(options, values["device"].as<std::string>());
        }
        return options;
    }
}
