#include "fabrics/core/Target.hpp"

#include "common/Random.hpp"
#include "common/Status.hpp"
#include "fabrics/core/DevicePayloads.hpp"
#include "fabrics/core/InterfaceChecks.hpp"
#include "fabrics/core/SetupOptions.hpp"
#include "fabrics/protocol/MappedFlow.hpp"
#include "fabrics/ticket/ProviderNames.hpp"

#include <algorithm>

namespace mxl::fabrics
{
    namespace
    {
        // The ticket's regions of a device flow registered directly, [header 0, payload 0, header 1, …]: the transport's
        // header regions, and slot k's payload at k × stride in the registered ring (a virtual address, or an offset
        // into the registration where the provider addresses by offset).
        std::vector<RemoteRegion> splitRegions(std::vector<RemoteRegion> const& headers, RemoteRegion const& ring, FlowMemory const& memory,
                                               GrainGeometry const& geometry)
        {
            std::vector<RemoteRegion> regions;
            regions.reserve(2 * headers.size());
            for (std::size_t slot = 0; slot < headers.size(); ++slot)
            {
                regions.push_back(headers[slot]);
                auto payload = ring;
                payload.addr = ring.addr + slot * memory.deviceGrainStrideBytes;
                payload.len = geometry.payloadBytes();
                regions.push_back(std::move(payload));
            }
            return regions;
        }

        RegionSpans targetSpans(FlowMemory const& memory, std::optional<GrainGeometry> const& geometry, SampleIngress const* samples,
                                DeviceStaging const* staging, bool direct)
        {
            if (samples != nullptr)
            {
                return samples->bounceBuffer().spans();
            }
            if (direct)
            {
                return headerSpans(memory);
            }
            return staging != nullptr ? staging->spans() : grainSpans(memory, *geometry);
        }
    }

    Target::Target(Backend& backend) noexcept
        : _backend{backend}
    {
    }

    void Target::setup(mxlFabricsTargetConfig const& config, char const* options)
    {
        auto const parsed = SetupOptions::parse(options);
        auto const& memory = flowMemoryOf(config.writer, "target");
        auto const sampleFlow = carriesSamples(memory);
        auto const geometry = sampleFlow ? std::nullopt : std::optional<GrainGeometry>{GrainGeometry::of(memory, "target")};
        checkInterfaceConfig(config.interface);
        auto opened = openFlowDomain(_backend, config.interface, Role::Target, parsed.transport, parsed.devicePayloads, memory);
        auto const direct = opened.deviceRing != nullptr;

        // Re-setup drops the previous endpoint first so that it can listen on the same address.
        ingress.reset();
        transport.reset();
        staging.reset();
        deviceRing.reset();
        domain.reset();
        samples.reset();
        if (sampleFlow)
        {
            samples.emplace(config.writer);
        }
        if (!sampleFlow && DeviceStaging::needed(memory) && !direct)
        {
            staging = std::make_unique<DeviceStaging>(memory, *geometry);
        }
        auto const regions = targetSpans(memory, geometry, samples ? &*samples : nullptr, staging.get(), direct);
        TargetInfo published;
        published.id = randomId();
        published.epoch = randomId();
        domain = std::move(opened.domain);
        deviceRing = std::move(opened.deviceRing);
        // An entry's writes are at most the entry: one that fits a single transfer always arrives whole (the msg
        // transport's receive buffers are that long).
        if (samples && samples->bounceBuffer().info().entrySize > domain->reported.maxMessageBytes)
        {
            fail(MXL_ERR_INVALID_ARG,
                 "the sample flow's bounce-buffer entries of {} bytes are longer than the {} bytes transport {} carries in one transfer "
                 "here; use transport rma or smaller sync batches",
                 samples->bounceBuffer().info().entrySize, domain->reported.maxMessageBytes, transportName(domain->reported.transport));
        }
        auto const screened = parsed.allowInitiators || parsed.admissionKeys;
        if (screened && domain->reported.connectionless)
        {
            fail(MXL_ERR_INVALID_ARG,
                 "option {}: a {} target of the {} backend receives no connection requests to screen (its initiators address it "
                 "directly); it applies to the tcp and verbs targets of the ofi backend",
                 parsed.allowInitiators ? "allowInitiators" : "admissionKeyFile", providerName(config.interface.provider).value_or("?"),
                 _backend.identity().name);
        }
        transport = _backend.openTarget(*domain, regions, parsed.cqDepth.value_or(0), published.id);
        connections.restart();
        transport->countConnections([this](ConnectionChange const& change) { connections.changed(change); });
        // Connection requests with data are screened, for the incarnation they name at least.
        if (screened || domain->reported.requestData)
        {
            // Before the first nextArrival, which is where requests are accepted: none gets in unscreened.
            admission.allow(parsed.allowInitiators, parsed.admissionKeys, published.id, published.epoch);
            transport->screenConnections([this](ConnectionRequest const& request) { return admission.admit(request); });
        }
        published.fabricAddress = transport->address();
        published.addressFormat = transport->addressFormat();
        published.provider = config.interface.provider;
        published.backend = _backend.identity().name;
        published.regions = direct ? splitRegions(transport->regions(), deviceRing->remote(), memory, *geometry) : transport->regions();
        published.splitGrainRegions = direct;
        published.transport = std::string{transportName(domain->reported.transport)};
        logTransportChoice(fmt::format("fabrics target {}", published.id), {domain->reported.transport, domain->reported.transportReason});
        if (staging)
        {
            log::info("fabrics target {}: its flow's {} (staged: {})", published.id, staging->describe(), opened.stagedBecause);
        }
        if (direct)
        {
            log::info("fabrics target {}: its flow's {}; its ticket splits each ring slot into a header and a payload region", published.id,
                      describeDirect(memory));
        }
        if (samples)
        {
            published.bounceBuffer = samples->bounceBuffer().info();
        }
        _ticket = std::move(published);
        if (!sampleFlow)
        {
            ingress.emplace(config.writer, *geometry, staging.get());
        }
    }

    TargetTransport& Target::setUp()
    {
        if (!transport)
        {
            fail(MXL_ERR_INVALID_STATE, "the target is not set up");
        }
        return *transport;
    }

    TargetInfo const& Target::ticket() const noexcept
    {
        return _ticket;
    }

    std::optional<mxlFabricsGrainArrival> Target::readGrain(std::chrono::milliseconds timeout)
    {
        setUp();
        if (!ingress)
        {
            fail(MXL_ERR_INVALID_STATE, "this target's flow carries samples: read it with ReadSamples, not ReadGrain");
        }
        return nextWellFormed<mxlFabricsGrainArrival>(timeout, [&](std::uint32_t immediate) { return ingress->arrive(immediate); });
    }

    std::optional<mxlFabricsSamplesArrival> Target::readSamples(std::chrono::milliseconds timeout)
    {
        setUp();
        if (!samples)
        {
            fail(MXL_ERR_INVALID_STATE, "this target's flow carries grains: read it with ReadGrain, not ReadSamples");
        }
        return nextWellFormed<mxlFabricsSamplesArrival>(timeout, [&](std::uint32_t immediate) { return samples->arrive(immediate); });
    }

    template <typename Arrival>
    std::optional<Arrival> Target::nextWellFormed(std::chrono::milliseconds timeout, std::function<Arrival(std::uint32_t)> const& arrive)
    {
        auto const deadline = std::chrono::steady_clock::now() + timeout;
        for (;;)
        {
            auto const left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
            auto const immediate = transport->nextArrival(std::max(left, std::chrono::milliseconds{0}));
            if (!immediate)
            {
                return std::nullopt;
            }
            try
            {
                return arrive(*immediate);
            }
            catch (Error const& e)
            {
                // Only INVALID_ARG says the completion itself is malformed; TOO_LATE (a slot being rewritten) and the
                // flow's own failures are the caller's to see.
                if (e.status() == MXL_ERR_OUT_OF_RANGE_TOO_LATE)
                {
                    noteLost(e);
                }
                if (e.status() != MXL_ERR_INVALID_ARG)
                {
                    throw;
                }
                skipMalformed(e);
            }
            if (std::chrono::steady_clock::now() >= deadline)
            {
                return std::nullopt;
            }
        }
    }

    void Target::skipMalformed(Error const& error)
    {
        ++_malformedArrivals;
        // The kind is the message up to its first number: the same fault with other values is not logged again.
        std::string message{error.what()};
        auto const kind = message.substr(0, message.find_first_of("0123456789"));
        if (_malformedKindsLogged.insert(kind).second)
        {
            log::warn("fabrics target {}: ignored a malformed completion from an initiator ({}); nothing outside this target's ring was "
                      "touched; further completions of this kind are skipped without a log line ({} malformed so far)",
                      _ticket.id, message, _malformedArrivals);
        }
    }

    void Target::noteLost(Error const& error)
    {
        std::string const message{error.what()};
        if (auto const note = _lostArrivals.admit(message))
        {
            log::warn("fabrics target {}: {}{}", _ticket.id, message, *note);
        }
    }
}
