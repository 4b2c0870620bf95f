#include "fabrics/core/Target.hpp"

#include "common/Random.hpp"
#include "common/Status.hpp"
#include "fabrics/core/InterfaceChecks.hpp"
#include "fabrics/core/SetupOptions.hpp"

#include <algorithm>

namespace mxl::fabrics
{
    namespace
    {
        FlowMemory const& memoryOf(mxlFlowWriter writer)
        {
            if (writer == nullptr)
            {
                fail(MXL_ERR_INVALID_ARG, "the target config has no flow writer");
            }
            return writer->memory;
        }
    }

    Target::Target(Backend& backend) noexcept
        : _backend{backend}
    {
    }

    void Target::setup(mxlFabricsTargetConfig const& config, char const* options)
    {
        auto const parsed = SetupOptions::parse(options);
        auto const& memory = memoryOf(config.writer);
        auto const sampleFlow = carriesSamples(memory);
        auto const geometry = sampleFlow ? std::nullopt : std::optional<GrainGeometry>{GrainGeometry::of(memory, "target")};
        checkInterfaceConfig(config.interface);
        auto opened = _backend.openDomain(config.interface, Role::Target, parsed.transport);

        // Re-setup drops the previous endpoint first so that it can listen on the same address.
        ingress.reset();
        transport.reset();
        staging.reset();
        domain.reset();
        samples.reset();
        if (sampleFlow)
        {
            samples.emplace(config.writer);
        }
        if (!sampleFlow && DeviceStaging::needed(memory))
        {
            staging = std::make_unique<DeviceStaging>(memory, *geometry);
        }
        auto const regions = sampleFlow ? samples->bounceBuffer().spans() : staging ? staging->spans() : grainSpans(memory, *geometry);
        TargetInfo published;
        published.id = randomId();
        published.epoch = randomId();
        domain = std::move(opened);
        // An entry's writes are at most the entry: one that fits a single transfer always arrives whole (the msg
        // transport's receive buffers are that long).
        if (samples && samples->bounceBuffer().info().entrySize > domain->reported.maxMessageBytes)
        {
            fail(MXL_ERR_INVALID_ARG,
                 "the sample flow's bounce-buffer entries of {} bytes are longer than the {} bytes transport {} carries in one transfer "
                 "here; use transport rma or smaller sync batches",
                 samples->bounceBuffer().info().entrySize, domain->reported.maxMessageBytes, transportName(domain->reported.transport));
        }
        transport = _backend.openTarget(*domain, regions, parsed.cqDepth.value_or(0), published.id);
        published.fabricAddress = transport->address();
        published.addressFormat = transport->addressFormat();
        published.provider = config.interface.provider;
        published.backend = _backend.identity().name;
        published.regions = transport->regions();
        published.transport = std::string{transportName(domain->reported.transport)};
        logTransportChoice(fmt::format("fabrics target {}", published.id), {domain->reported.transport, domain->reported.transportReason});
        if (staging)
        {
            log::info("fabrics target {}: its flow's {}", published.id, staging->describe());
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

    std::optional<GrainArrival> Target::readGrain(std::chrono::milliseconds timeout)
    {
        setUp();
        if (!ingress)
        {
            fail(MXL_ERR_INVALID_STATE, "this target's flow carries samples: read it with ReadSamples, not ReadGrain");
        }
        return nextWellFormed<GrainArrival>(timeout, [&](std::uint32_t immediate) { return ingress->arrive(immediate); });
    }

    std::optional<SampleArrival> Target::readSamples(std::chrono::milliseconds timeout)
    {
        setUp();
        if (!samples)
        {
            fail(MXL_ERR_INVALID_STATE, "this target's flow carries grains: read it with ReadGrain, not ReadSamples");
        }
        return nextWellFormed<SampleArrival>(timeout, [&](std::uint32_t immediate) { return samples->arrive(immediate); });
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
}
