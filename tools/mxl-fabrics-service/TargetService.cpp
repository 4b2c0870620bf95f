#include "TargetService.hpp"

#include "DomainIdentity.hpp"
#include "ServiceLog.hpp"
#include "ServiceNode.hpp"
#include "TargetListen.hpp"

#include <TicketSignature.hpp>

#include <ExitRequest.hpp>
#include <ReloadRequest.hpp>
#include <TextFile.hpp>
#include <client/ClientError.hpp>
#include <client/DeviceFlowOptions.hpp>
#include <client/FabricsInterfaces.hpp>
#include <client/FlowDefinitionText.hpp>
#include <client/FlowId.hpp>
#include <common/StatusName.hpp>

#include <mxl/flow.h>
#include <mxl/time.h>

#include <MxlTransport.hpp>

#include <fmt/format.h>

#include <thread>
#include <vector>

namespace mxl::service
{
    namespace
    {
        // Long enough to idle cheaply, short enough for signals, watchdog pings and status lines.
        constexpr std::uint16_t readTimeoutMs = 100;
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
    }

    TargetService::TargetService(ServiceConfig const& config, Notifier& notifier)
        : _config{config}
        , _notifier{notifier}
        , _instance{config.domain}
        , _writer{_instance, tools::readTextFile(config.flowDefinition, "flow definition"), config.writerOptions,
                  fmt::format("flow_definition '{}'", config.flowDefinition.string())}
        , _flowId{client::flowIdOf(_writer.config())}
        , _unit{bridge::transferUnitOf(_writer.config())}
        , _reader{_instance, _flowId}
        , _fabrics{_instance.get(), config.backend}
        , _interface{selectInterface(_fabrics.get(), config)}
        , _metrics{"target", _flowId, _writer.config()}
        , _statusFile{config}
    {
        _bytesPerSlice = bridge::bytesPerSlice(_writer.config());
        if (!_writer.created())
        {
            log::warning("flow {} already existed in domain '{}'; receiving into it (its definition file was not applied)", _flowId,
                         config.domain.string());
        }
        log::info("target flow {} in domain '{}' ({})", _flowId, config.domain.string(),
                  client::payloadLocationText(_writer.config().common));
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
        if (!config.paths.empty())
        {
            bridge::PathSettings paths{config.domain,  definition,          config.writerOptions, fmt::format("flow {}", _flowId),
                                       config.backend, config.setupOptions, config.paths};
            _paths = std::make_unique<bridge::PathTargets>(
                paths, _writer.get(), _unit,
                [this](std::uint64_t last, std::uint64_t bytes, std::uint64_t samples) { account(last, bytes, samples); },
                [&config](mxlFabricsInstance fabrics, std::string const& node) { return selectInterface(fabrics, config, node, "path"); });
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
        if (_paths)
        {
            std::vector<std::string> tickets;
            try
            {
                tickets = _paths->listen();
            }
            catch (client::ClientError const& error)
            {
                throw ConfigError{fmt::format("{}: {} (key 'service')", _config.origin, error.what())};
            }
            _secondUnsignedTicket = libraryTicket(std::move(tickets[1]));
            publish(libraryTicket(std::move(tickets[0])));
        }
        else
        {
            // The old target goes first: it holds the listening port the new one may need.
            _refusedByEarlierTargets += client::refusedInitiators(_target.get());
            _target.reset();
            _target = std::make_unique<client::FabricsTarget>(_fabrics.get());
            // A device flow's setup can also fail for its location (docs/device-flows.md).
            bool const onDevice = _writer.config().common.payloadLocation == MXL_PAYLOAD_LOCATION_DEVICE_MEMORY;
            publish(listenForTicket(*_target, _interface, _writer.get(), _config,
                                    onDevice ? "keys 'node', 'service', 'transport', 'device'" : "keys 'node', 'service', 'transport'"));
        }
        _flowing = false;
        _nextExpected.reset();
    }

    void TargetService::publish(Ticket ticket)
    {
        _metrics.setEpoch(ticket.epoch);
        _metrics.setTransport(ticket.transport);
        _metrics.setState("waiting");
        _unsignedTicket = ticket;
        distribute(std::move(ticket));
        log::info("ticket published: epoch {}{}{}{}{}{}", _unsignedTicket->epoch,
                  _config.ticketFile.empty() ? "" : fmt::format(", file '{}'", _config.ticketFile.string()),
                  !_secondUnsignedTicket ? ""
                  : _config.secondTicketFile.empty()
                      ? fmt::format(", path 2 epoch {} (no file)", _secondUnsignedTicket->epoch)
                      : fmt::format(", path 2 epoch {} file '{}'", _secondUnsignedTicket->epoch, _config.secondTicketFile.string()),
                  _nmos ? fmt::format(", {}://{}:{}/ticket", _nmos->http().secure() ? "https" : "http", _config.http->host, _nmos->port())
                        : "",
                  _directory ? fmt::format(", etcd://{}{}", _config.etcd->endpoint, _directory->key()) : "",
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
            directory::writeTicketFile(_config.secondTicketFile, signedWhenKeyed(_secondUnsignedTicket->json) + '\n');
        }
    }

    void TargetService::distribute(Ticket ticket)
    {
        ticket.json = signedWhenKeyed(std::move(ticket.json));
        distributeSecondTicket();
        if (!_config.ticketFile.empty())
        {
            directory::writeTicketFile(_config.ticketFile, ticket.json + '\n');
        }
        if (_directory)
        {
            _directory->publish(ticket.json);
        }
        std::lock_guard lock{_ticketMutex};
        _ticket = std::move(ticket);
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

    void TargetService::run()
    {
        _notifier.ready(_metrics.statusLine());
        _statusFile.publish(_metrics);
        log::info("ready: waiting for an initiator");
        tools::setActivity(fmt::format("receiving grains of flow {} in the fabrics library", _flowId));
        while (!tools::exitRequested())
        {
            tools::markProgress();
            _notifier.keepAlive();
            receive();
            auto const now = Clock::now();
            checkHealth(now);
            applyActivation();
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
        if (_paths)
        {
            _paths->finish();
            _metrics.setPathCounters(_paths->counters());
        }
        _metrics.setState("stopping");
        _notifier.stopping(_metrics.statusLine());
        log::info("stopping: {}", _metrics.statusLine());
        tools::setActivity("stopping: withdrawing the ticket and closing the fabrics target");
    }

    void TargetService::applyActivation()
    {
        if (auto const active = _nmos ? _nmos->takeActivated() : std::nullopt)
        {
            auto const& sender = (*active)["transport_params"][0]["ext_mxl_sender_api"];
            auto const& senderId = (*active)["sender_id"];
            bool const enabled = (*active)["master_enable"].get<bool>();
            // A controller that copies only BCP-007-03's parameters names the sender by its id: the Query API says where
            // its Connection API is.
            auto const lookUp = !sender.is_string() && senderId.is_string() && _config.nmosQuery;
            log::info("IS-05: receiver {} activated: master_enable {}, sender {}", _nmos->endpointId(), enabled,
                      sender.is_string() ? sender.get<std::string>()
                      : lookUp ? fmt::format("{} (to look up in the Query API at {})", senderId.get<std::string>(), _config.nmosQuery->url)
                               : std::string{"none"});
            if (_handover)
            {
                // A receiver connects one sender; the previous one stops writing into this flow. It is taken back on the
                // handover's own thread, and collected once that finished.
                _handover->retire();
                _retiredHandovers.push_back(std::move(_handover));
            }
            if (enabled && (sender.is_string() || lookUp))
            {
                auto address = sender.is_string() ? nmos::SenderAddress{sender.get<std::string>(), {}, std::nullopt}
                                                  : nmos::SenderAddress{{}, senderId.get<std::string>(), _config.nmosQuery};
                _handover = std::make_unique<nmos::TicketHandover>(std::move(address), _nmos->endpointId(), true);
            }
        }
        std::erase_if(_retiredHandovers, [](auto const& retired) { return retired->done(); });
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

    void TargetService::receive()
    {
        if (_paths)
        {
            bool arrivedAny = false;
            auto const status = _paths->receive(arrivedAny);
            _metrics.setLost(_paths->lost());
            if (status != MXL_STATUS_OK)
            {
                log::warning("reading the paths' {} failed ({}); rebuilding the path targets",
                             _unit == TransferUnit::Grain ? "grains" : "samples", mxl::statusName(status));
                _metrics.stalled();
                buildTarget();
            }
            else if (!arrivedAny)
            {
                // Two targets are read in turn without waiting inside the library.
                std::this_thread::sleep_for(std::chrono::milliseconds{1});
            }
            return;
        }
        auto const status = _unit == TransferUnit::Grain ? receiveGrain() : receiveSamples();
        if (status == MXL_ERR_NOT_READY && !_interface.blocking())
        {
            // Polling providers (shm) cannot wait inside the library.
            std::this_thread::sleep_for(std::chrono::milliseconds{1});
        }
        else if (status != MXL_STATUS_OK && status != MXL_ERR_NOT_READY && status != MXL_ERR_INTERRUPTED)
        {
            log::warning("reading {} failed ({}); rebuilding the target", _unit == TransferUnit::Grain ? "grains" : "samples",
                         mxl::statusName(status));
            _metrics.stalled();
            buildTarget();
        }
    }

    mxlStatus TargetService::receiveGrain()
    {
        std::uint64_t grainIndex = 0;
        auto const status = _interface.blocking() ? ::mxlFabricsTargetReadGrain(_target->get(), readTimeoutMs, &grainIndex)
                                                  : ::mxlFabricsTargetReadGrainNonBlocking(_target->get(), &grainIndex);
        if (status == MXL_ERR_OUT_OF_RANGE_TOO_LATE)
        {
            // An initiator rewrote the slot before this loop read it (the library logged which grain): that grain is gone,
            // the target is fine.
            _metrics.lost(1);
            return MXL_STATUS_OK;
        }
        if (status != MXL_STATUS_OK)
        {
            return status;
        }
        mxlGrainInfo grain{};
        std::uint8_t* payload = nullptr;
        std::uint64_t bytes = 0;
        if (::mxlFlowReaderGetGrainSliceNonBlocking(_reader.get(), grainIndex, MXL_GRAIN_VALID_SLICES_ANY, &grain, &payload) ==
            MXL_STATUS_OK)
        {
            bytes = grain.validSlices * _bytesPerSlice;
        }
        arrived(grainIndex, grainIndex, bytes, 0);
        return MXL_STATUS_OK;
    }

    mxlStatus TargetService::receiveSamples()
    {
        std::uint64_t headIndex = 0;
        std::size_t count = 0;
        auto const status = _interface.blocking() ? ::mxlFabricsTargetReadSamples(_target->get(), readTimeoutMs, &headIndex, &count)
                                                  : ::mxlFabricsTargetReadSamplesNonBlocking(_target->get(), &headIndex, &count);
        if (status == MXL_ERR_OUT_OF_RANGE_TOO_LATE)
        {
            // An initiator reused a bounce-buffer entry before this loop read it (the library logged which): that batch
            // is gone, the target is fine.
            _metrics.lost(1);
            return MXL_STATUS_OK;
        }
        if (status != MXL_STATUS_OK)
        {
            return status;
        }
        // A range ends at (and includes) its head index.
        mxlWrappedMultiBufferSlice slices{};
        std::uint64_t bytes = 0;
        if (::mxlFlowReaderGetSamplesNonBlocking(_reader.get(), headIndex, count, &slices) == MXL_STATUS_OK)
        {
            bytes = (slices.base.fragments[0].size + slices.base.fragments[1].size) * slices.count;
        }
        arrived(headIndex + 1 - count, headIndex, bytes, count);
        return MXL_STATUS_OK;
    }

    void TargetService::arrived(std::uint64_t first, std::uint64_t last, std::uint64_t bytes, std::uint64_t samples)
    {
        if (_nextExpected && first > *_nextExpected)
        {
            // Whole units: a grain per missing index, a batch (of this one's length) per started run of missing samples.
            auto const perUnit = std::max<std::uint64_t>(last + 1 - first, 1);
            _metrics.lost((first - *_nextExpected + perUnit - 1) / perUnit);
        }
        _nextExpected = last + 1;
        account(last, bytes, samples);
    }

    void TargetService::account(std::uint64_t last, std::uint64_t bytes, std::uint64_t samples)
    {
        auto const rate = _writer.config().common.grainRate;
        auto const now = ::mxlGetTime();
        // A batch is due at the timestamp of its last sample: the initiator cannot send it earlier.
        auto const due = ::mxlIndexToTimestamp(&rate, last);
        auto const latency = std::chrono::nanoseconds{now > due ? now - due : 0};
        _metrics.moved(bytes, samples, latency, latency > _config.lateAfter);
        log::debug("{} {} arrived, {} bytes, {} us after its timestamp", samples == 0 ? "grain" : "samples up to", last, bytes,
                   latency.count() / 1000);
    }

    void TargetService::checkHealth(Clock::time_point now)
    {
        mxlFlowRuntimeInfo runtime{};
        if (::mxlFlowReaderGetRuntimeInfo(_reader.get(), &runtime) == MXL_STATUS_OK && runtime.headIndex != _head)
        {
            // Health is what local readers see: the flow's head moving, whatever the counters say.
            _head = runtime.headIndex;
            _headAdvancedAt = now;
            if (!_flowing)
            {
                log::info("{} are arriving (head {})", _unit == TransferUnit::Grain ? "grains" : "samples", _head);
            }
            _flowing = true;
        }
        auto const quiet = now - _headAdvancedAt;
        if (_flowing && quiet >= _config.stallTimeout)
        {
            log::warning("stalled: the flow's head {} has not advanced for {} ms; rebuilding the target under a new epoch", _head,
                         std::chrono::duration_cast<std::chrono::milliseconds>(quiet).count());
            _metrics.stalled();
            _metrics.reestablished();
            buildTarget();
        }
        if (now >= _nextStatus)
        {
            _nextStatus = now + _config.statusInterval;
            if (_flowing)
            {
                _metrics.setState(quiet < std::max<Clock::duration>(_config.statusInterval, std::chrono::milliseconds{500}) ? "active"
                                                                                                                            : "idle");
            }
            if (_paths)
            {
                _metrics.setPathCounters(_paths->counters());
            }
            _metrics.setRefusedInitiators(_paths ? _paths->refusedInitiators()
                                                 : _refusedByEarlierTargets + client::refusedInitiators(_target.get()));
            auto const line = _metrics.statusLine();
            _notifier.status(line);
            _statusFile.publish(_metrics);
            log::debug("status: {}", line);
        }
    }
}
