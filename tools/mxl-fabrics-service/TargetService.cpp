#include "TargetService.hpp"

#include "DomainIdentity.hpp"
#include "ServiceLog.hpp"
#include "ServiceNode.hpp"

#include <DirectoryError.hpp>
#include <TicketSignature.hpp>

#include <ExitRequest.hpp>
#include <ReloadRequest.hpp>
#include <client/ClientError.hpp>
#include <client/DeviceFlowOptions.hpp>
#include <client/FabricsInterfaces.hpp>
#include <client/FlowDefinitionText.hpp>
#include <client/FlowId.hpp>
#include <client/TextFile.hpp>
#include <common/BoundedJson.hpp>
#include <common/FlowPaths.hpp>

#include <mxl/flow.h>
#include <mxl/mxl.h>

#include <MxlTransport.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <vector>

namespace mxl::service
{
    namespace
    {
        // Each etcd call, on the publication's own thread.
        constexpr std::chrono::milliseconds etcdTimeout{1000};

        // BCP-007-03's two, and ext_mxl_sender_api: the Connection API resource of the sender to connect, as the sender's
        // own parameter names it.
        std::vector<nmos::TransportParam> receiverParams(std::optional<std::string> const& domainId, std::string const& flowId)
        {
            auto params = nmos::mxlParams(nmos::Role::Receiver, domainId, flowId);
            params.push_back(nmos::senderApiParam(nmos::Role::Receiver, {}));
            return params;
        }

        // Whether the domain holds a flow of the id `definition` gives, which no live writer holds.
        bool leftInactive(client::Instance const& instance, ServiceConfig const& config, std::string const& definition)
        {
            auto const document = mxl::parseJsonOrDiscarded(definition);
            auto const id = document.is_object() && document.contains("id") && document["id"].is_string()
                                ? client::canonicalFlowId(document["id"].get<std::string>())
                                : std::nullopt;
            bool active = true;
            return id && std::filesystem::exists(paths::flowDirectory(config.domain, *id)) &&
                   ::mxlIsFlowActive(instance.get(), id->c_str(), &active) == MXL_STATUS_OK && !active;
        }

        // The target's flow. One of the same id that an earlier writer left unusable (a file of it truncated or removed,
        // say under a process that the kernel then ended) has no live writer: the domain's inactive flows are garbage
        // collected and the flow is created once more, rather than the definition being taken for a rejected one.
        client::FlowWriter openFlowWriter(client::Instance const& instance, ServiceConfig const& config)
        {
            auto const definition = client::readTextFile(config.flowDefinition, "flow definition");
            auto const origin = fmt::format("flow_definition '{}'", config.flowDefinition.string());
            try
            {
                return client::FlowWriter{instance, definition, config.writerOptions, origin};
            }
            catch (client::ClientError const& error)
            {
                if (!leftInactive(instance, config, definition) || ::mxlGarbageCollectFlows(instance.get()) != MXL_STATUS_OK)
                {
                    throw;
                }
                auto writer = client::FlowWriter{instance, definition, config.writerOptions, origin};
                log::warning("the flow of {} could not be opened at first ({}); the domain's inactive flows were garbage collected "
                             "and the flow created again",
                             origin, error.what());
                return writer;
            }
        }
    }

    TargetService::TargetService(ServiceConfig const& config, Notifier& notifier, bridge::MetricsTotals const& earlier)
        : _config{config}
        , _notifier{notifier}
        , _instance{config.domain}
        , _writer{openFlowWriter(_instance, config)}
        , _flowId{client::flowIdOf(_writer.config())}
        , _reader{_instance, _flowId}
        , _fabrics{_instance.get(), config.backend}
        , _metrics{"target", _flowId, _writer.config()}
        , _statusFile{config}
    {
        _metrics.goOnFrom(earlier);
        if (!_writer.created())
        {
            log::warning("flow {} already existed in domain '{}'; receiving into it (its definition file was not applied)", _flowId,
                         config.domain.string());
        }
        log::info("target flow {} in domain '{}' ({})", _flowId, config.domain.string(),
                  client::payloadLocationText(_writer.config().common));
        // Before anything starts that others see (NMOS, etcd): a wrong node or provider ends the service quietly.
        auto interface = config.paths.empty() ? std::optional{selectInterface(_fabrics.get(), config)} : std::nullopt;
        auto const domainId = establishDomainIdentity(config.domain);
        // The flow's own definition: a flow that already existed kept its own, not the file's.
        auto const definition = client::readFlowDefinition(_instance.get(), _flowId);
        if (config.etcd)
        {
            _directory = std::make_unique<directory::BackgroundPublication>(
                config.etcd->endpoint, config.etcd->key + _flowId, config.etcd->lease, etcdTimeout,
                [](directory::TicketPublication::Outcome outcome, std::string const& message)
                {
                    if (outcome == directory::TicketPublication::Outcome::Published)
                    {
                        log::info("{}", message);
                        return;
                    }
                    if (outcome == directory::TicketPublication::Outcome::Repeated)
                    {
                        log::debug("{}", message);
                        return;
                    }
                    log::warning("{}; the target goes on and retries", message);
                });
        }
        if (config.http)
        {
            std::map<std::string, HttpResource> resources;
            resources["/ticket"] = {"application/json",
                                    [this]() -> std::optional<std::string>
                                    {
                                        std::lock_guard lock{_ticketMutex};
                                        return _ticket ? std::optional{_ticket->json} : std::nullopt;
                                    }};
            resources["/metrics"] = {"text/plain; version=0.0.4", [this] { return std::optional{_metrics.prometheus()}; }};
            _nmos = startServiceNode(
                config, nmos::Role::Receiver, definition, false,
                [domainId, this](std::string const&) { return receiverParams(domainId, _flowId); }, std::move(resources));
        }
        bridge::ReceiverSettings const settings{config.setupOptions, config.stallTimeout, config.lateAfter};
        if (config.paths.empty())
        {
            _session = std::make_unique<bridge::ReceiverSession>(_fabrics.get(), std::move(*interface), _writer.get(), _reader.get(),
                                                                 _metrics, settings);
        }
        else
        {
            bridge::PathSettings paths{config.domain,  definition,          config.writerOptions, fmt::format("flow {}", _flowId),
                                       config.backend, config.setupOptions, config.paths};
            _session = std::make_unique<bridge::ReceiverSession>(
                paths,
                [&config](mxlFabricsInstance fabrics, std::string const& node) { return selectInterface(fabrics, config, node, "path"); },
                _writer.get(), _reader.get(), _metrics, settings);
            log::info("redundant paths: path 1 on '{}', path 2 on '{}', merged into flow {}", config.paths[0], config.paths[1], _flowId);
        }
        buildTarget();
    }

    TargetService::~TargetService()
    {
        withdrawTicketFile();
        // Like the ticket file: a stopped target's ticket is stale, and the sender had better know it at once. Destroying
        // a handover takes its ticket back.
        _handover.reset();
        _retiredHandovers.clear();
        // Withdraws the ticket from etcd.
        _directory.reset();
    }

    void TargetService::buildTarget()
    {
        std::vector<std::string> tickets;
        try
        {
            tickets = _session->listen();
        }
        catch (client::ClientError const& error)
        {
            // A device flow's setup can also fail for its location (docs/device-flows.md).
            bool const onDevice = _writer.config().common.payloadLocation == MXL_PAYLOAD_LOCATION_DEVICE_MEMORY;
            throw ConfigError{fmt::format("{}: {} ({})", _config.origin, error.what(),
                                          _session->redundant() ? "key 'service'"
                                          : onDevice            ? "keys 'node', 'service', 'transport', 'device'"
                                                                : "keys 'node', 'service', 'transport'")};
        }
        if (tickets.size() > 1)
        {
            _secondUnsignedTicket = directory::libraryTicket(std::move(tickets[1]));
        }
        publish(directory::libraryTicket(std::move(tickets[0])));
    }

    void TargetService::publish(Ticket ticket)
    {
        _metrics.setEpoch(ticket.epoch);
        _metrics.setTransport(ticket.transport);
        _metrics.setState("waiting");
        _unsignedTicket = ticket;
        distribute(std::move(ticket));
        log::info(
            "ticket published: epoch {}{}{}{}{}{}", _unsignedTicket->epoch,
            _config.ticketFile.empty()                      ? ""
            : _owedTicketFiles.contains(_config.ticketFile) ? fmt::format(", file '{}' once it can be written", _config.ticketFile.string())
                                                            : fmt::format(", file '{}'", _config.ticketFile.string()),
            !_secondUnsignedTicket ? ""
            : _config.secondTicketFile.empty()
                ? fmt::format(", path 2 epoch {} (no file)", _secondUnsignedTicket->epoch)
                : fmt::format(", path 2 epoch {} file '{}'", _secondUnsignedTicket->epoch, _config.secondTicketFile.string()),
            _nmos ? fmt::format(", {}://{}:{}/ticket", _nmos->http().secure() ? "https" : "http", _config.http->host, _nmos->port()) : "",
            !_directory               ? ""
            : _directory->answering() ? fmt::format(", etcd://{}{}", _config.etcd->endpoint, _directory->key())
                                      : fmt::format(", etcd://{}{} once etcd answers", _config.etcd->endpoint, _directory->key()),
            _config.ticketKeys
                ? fmt::format(", signed with key '{}' for {} s", _config.ticketKeys->current.id, _config.ticketLifetime.count())
                : "");
    }

    std::string TargetService::signedWhenKeyed(std::string json)
    {
        if (!_config.ticketKeys)
        {
            return json;
        }
        _resignAt = Clock::now() + _config.ticketLifetime / 2;
        return signing::signTicket(json, _config.ticketKeys->current, std::chrono::system_clock::now() + _config.ticketLifetime);
    }

    void TargetService::distributeSecondTicket()
    {
        if (_secondUnsignedTicket && !_config.secondTicketFile.empty())
        {
            writeTicketFile(_config.secondTicketFile, signedWhenKeyed(_secondUnsignedTicket->json) + '\n');
        }
    }

    void TargetService::distribute(Ticket ticket)
    {
        ticket.json = signedWhenKeyed(std::move(ticket.json));
        distributeSecondTicket();
        if (!_config.ticketFile.empty())
        {
            writeTicketFile(_config.ticketFile, ticket.json + '\n');
        }
        if (_directory)
        {
            _directory->publish(ticket.json);
        }
        std::lock_guard lock{_ticketMutex};
        _ticket = std::move(ticket);
    }

    void TargetService::writeTicketFile(std::filesystem::path const& path, std::string text)
    {
        try
        {
            directory::writeTicketFile(path, text);
            if (_owedTicketFiles.erase(path) > 0)
            {
                log::info("ticket file '{}' written", path.string());
            }
        }
        catch (directory::DirectoryError const& error)
        {
            if (error.what() != _lastTicketFileProblem)
            {
                _lastTicketFileProblem = error.what();
                log::warning("{}; the target goes on and writes it again every status interval", _lastTicketFileProblem);
            }
            _owedTicketFiles[path] = std::move(text);
        }
    }

    void TargetService::writeOwedTicketFiles()
    {
        auto owed = _owedTicketFiles;
        for (auto& [path, text] : owed)
        {
            writeTicketFile(path, std::move(text));
        }
        if (_owedTicketFiles.empty())
        {
            _lastTicketFileProblem.clear();
        }
    }

    void TargetService::withdrawTicketFile() const
    {
        // A stopped target's ticket is stale; leaving no file makes initiators wait instead of connecting to nothing.
        std::lock_guard lock{_ticketMutex};
        if (!_ticket)
        {
            return;
        }
        std::error_code error;
        for (auto const& file : {_config.ticketFile, _config.secondTicketFile})
        {
            if (!file.empty())
            {
                std::filesystem::remove(file, error);
            }
        }
    }

    std::uint64_t TargetService::flowInode() const
    {
        struct stat status
        {
        };
        auto const data = paths::dataFile(paths::flowDirectory(_config.domain, _flowId));
        return ::stat(data.c_str(), &status) == 0 ? static_cast<std::uint64_t>(status.st_ino) : 0;
    }

    bool TargetService::run()
    {
        _flowInode = flowInode();
        _notifier.ready(_metrics.statusLine());
        _statusFile.publish(_metrics);
        log::info("ready: waiting for an initiator");
        tools::setActivity(fmt::format("receiving grains of flow {} in the fabrics library", _flowId));
        while (!tools::exitRequested() && !_flowLost)
        {
            tools::markProgress();
            _notifier.keepAlive();
            auto const now = Clock::now();
            if (_session->step(now))
            {
                buildTarget();
            }
            statusTick(now);
            applyActivation();
            excuseDisabledSender(now);
            if (tools::takeReloadRequest())
            {
                reloadCertificate(_nmos.get());
            }
            if (_config.ticketKeys && _unsignedTicket && now >= _resignAt)
            {
                // Same epoch: initiators holding the ticket keep their connection; new ones get an unexpired signature.
                distribute(*_unsignedTicket);
                log::info("ticket signed again: epoch {}, valid for {} s", _unsignedTicket->epoch, _config.ticketLifetime.count());
            }
        }
        _session->finish();
        if (_flowLost)
        {
            log::warning("flow {} was deleted or re-created in domain '{}' under this target, so its readers no longer see what it "
                         "receives: starting afresh (the flow created again, a new epoch)",
                         _flowId, _config.domain.string());
            tools::setActivity("starting afresh: withdrawing the ticket and closing the fabrics target");
            return true;
        }
        _metrics.setState("stopping");
        _notifier.stopping(_metrics.statusLine());
        log::info("stopping: {}", _metrics.statusLine());
        tools::setActivity("stopping: withdrawing the ticket and closing the fabrics target");
        return false;
    }

    void TargetService::applyActivation()
    {
        if (auto const active = _nmos ? _nmos->takeActivated() : std::nullopt)
        {
            auto const& sender = (*active)["transport_params"][0]["ext_mxl_sender_api"];
            auto const& senderId = (*active)["sender_id"];
            bool const enabled = (*active)["master_enable"].get<bool>();
            // Staged parameters stay until changed: a controller that names another sender_id without its
            // ext_mxl_sender_api leaves the previous sender's there.
            auto const named = sender.is_string() ? nmos::senderIdOfApi(sender.get<std::string>()) : std::nullopt;
            bool const stale = named && senderId.is_string() && *named != senderId.get<std::string>();
            bool const byUrl = sender.is_string() && !stale;
            // A controller that copies only BCP-007-03's parameters names the sender by its id: the Query API says where
            // its Connection API is.
            auto const lookUp = !byUrl && senderId.is_string() && _config.nmosQuery;
            if (stale && enabled)
            {
                log::warning("IS-05: receiver {}: ext_mxl_sender_api names sender {}, not sender_id {}: {}", _nmos->endpointId(), *named,
                             senderId.get<std::string>(),
                             lookUp ? "looking sender_id up in the Query API"
                                    : "connecting none (no Query API to find sender_id in: nmos_query or nmos_registry)");
            }
            log::info("IS-05: receiver {} activated: master_enable {}, sender {}", _nmos->endpointId(), enabled,
                      byUrl    ? sender.get<std::string>()
                      : lookUp ? fmt::format("{} (to look up in the Query API at {})", senderId.get<std::string>(), _config.nmosQuery->url)
                               : std::string{"none"});
            if (_handover)
            {
                // A receiver connects one sender; the previous one stops writing into this flow. It is taken back on the
                // handover's own thread, and collected once that finished.
                _handover->retire();
                _retiredHandovers.push_back(std::move(_handover));
            }
            if (enabled && (byUrl || lookUp))
            {
                auto address = byUrl ? nmos::SenderAddress{sender.get<std::string>(), {}, std::nullopt}
                                     : nmos::SenderAddress{{}, senderId.get<std::string>(), _config.nmosQuery};
                _handover = std::make_unique<nmos::TicketHandover>(std::move(address), _nmos->endpointId(), true);
            }
        }
        bool senderNotStopped = false;
        bool senderStopped = false;
        std::erase_if(_retiredHandovers,
                      [&](auto const& retired)
                      {
                          senderNotStopped = senderNotStopped || (retired->done() && !retired->released());
                          senderStopped = senderStopped || (retired->done() && retired->released());
                          return retired->done();
                      });
        if (senderStopped && !senderNotStopped && !_handover)
        {
            // The silence that follows was asked for: no stall, no rebuild under a new epoch.
            _session->senderStopped(Clock::now());
            log::info("IS-05: receiver {} let its sender go: the flow's head standing still is no stall; waiting for an initiator",
                      _nmos->endpointId());
        }
        if (senderNotStopped)
        {
            // Its writes end with the epoch: a new one has new keys.
            log::warning("IS-05: the previous sender could not be told to stop writing: rebuilding the target under a new epoch");
            buildTarget();
        }
        // A retired hand-over takes its ticket back first: the same sender may be named again, and the take-back must
        // not land after the new hand-over.
        if (!_handover || !_retiredHandovers.empty())
        {
            return;
        }
        std::unique_lock lock{_ticketMutex};
        auto const ticket = _ticket ? _ticket->json : std::string{};
        lock.unlock();
        if (!ticket.empty())
        {
            _handover->maintain(ticket);
        }
    }

    void TargetService::excuseDisabledSender(Clock::time_point now)
    {
        // Asked once per quiet spell, whatever the status interval, the sender answers well before the stall timeout.
        bool const due = _handover && _session->senderQuestionDue(now);
        if (due && !_senderProbed)
        {
            _handover->probeSender();
        }
        _senderProbed = due;
        if (!due || !_handover->senderDisabled())
        {
            return;
        }
        _session->senderStopped(Clock::now());
        log::info("IS-05: the sender of receiver {} is disabled (its master_enable false): the flow's head standing still is no "
                  "stall; waiting for it to be enabled",
                  _nmos->endpointId());
    }

    void TargetService::statusTick(Clock::time_point now)
    {
        if (now < _nextStatus)
        {
            return;
        }
        _nextStatus = now + _config.statusInterval;
        _session->refreshMetrics(now, std::max<Clock::duration>(_config.statusInterval, std::chrono::milliseconds{500}));
        auto const line = _metrics.statusLine();
        _notifier.status(line);
        _statusFile.publish(_metrics);
        writeOwedTicketFiles();
        _flowLost = flowInode() != _flowInode;
        log::debug("status: {}", line);
    }
}
