// A target and an initiator in one process, each on its own domain, driven alternately from the test's thread:
// source grains are written with a pattern, transferred, and read back through a flow reader of the target's domain.
#pragma once

#include <mxl/fabrics.h>
#include <mxl/fabrics_state.h>
#include <mxl/flow.h>

#include "TempDomain.hpp"
#include "fabrics/transport/fabrics_backend.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace mxl::test::fabrics
{
    std::string flowDefinition(std::string const& file);

    mxlFabricsInterfaceConfig interfaceConfig(mxlFabricsProvider provider, char const* node, char const* service);

    // Writes `<domain>/options.json` with a history duration when given (ring sizes follow from it).
    class FlowDomain
    {
    public:
        explicit FlowDomain(std::string const& tag, std::optional<std::uint64_t> historyNs = std::nullopt);
        ~FlowDomain();

        FlowDomain(FlowDomain const&) = delete;
        FlowDomain& operator=(FlowDomain const&) = delete;

        mxlInstance instance = nullptr;
        mxlFabricsInstance fabrics = nullptr;

    private:
        TempDomain _directory;
    };

    // One flow of a domain: its writer and a reader.
    struct Flow
    {
        // `options`: the writer's flow options JSON (e.g. device payloads), none when null.
        Flow(FlowDomain& domain, std::string const& definition, char const* options = nullptr);
        ~Flow();

        Flow(Flow const&) = delete;
        Flow& operator=(Flow const&) = delete;

        mxlInstance instance;
        mxlFlowWriter writer = nullptr;
        mxlFlowReader reader = nullptr;
        mxlFlowConfigInfo config{};
    };

    // A set-up target on a flow; the ticket is freed with it.
    struct TargetEnd
    {
        TargetEnd(FlowDomain& domain, Flow& flow, mxlFabricsInterfaceConfig const& interface, char const* options = nullptr);
        ~TargetEnd();

        TargetEnd(TargetEnd const&) = delete;
        TargetEnd& operator=(TargetEnd const&) = delete;

        mxlFabricsInstance fabrics;
        mxlFabricsTarget target = nullptr;
        mxlFabricsTargetInfo ticket = nullptr;
        mxlStatus setupStatus = MXL_ERR_UNKNOWN;

        // ReadGrain for up to `timeout`; nullopt on NOT_READY, FAIL on any other error.
        std::optional<std::uint64_t> read(std::chrono::milliseconds timeout);
    };

    struct InitiatorEnd
    {
        InitiatorEnd(FlowDomain& domain, Flow& flow, mxlFabricsInterfaceConfig const& interface, char const* options = nullptr);
        ~InitiatorEnd();

        InitiatorEnd(InitiatorEnd const&) = delete;
        InitiatorEnd& operator=(InitiatorEnd const&) = delete;

        mxlFabricsInstance fabrics;
        mxlFabricsInitiator initiator = nullptr;

        mxlFabricsTargetState state(TargetEnd const& target, std::string* reason = nullptr) const;
    };

    // Writes grain `index` of a source flow: every payload byte derived from (index, seed); returns the FNV-1a of it.
    std::uint64_t writeGrain(Flow& source, std::uint64_t index, std::uint32_t seed, std::uint32_t flags = 0);

    // Drives both ends until the initiator reports OK (every target connected, nothing in flight) or `timeout` passes.
    mxlStatus settle(InitiatorEnd& initiator, std::initializer_list<TargetEnd*> targets, std::chrono::milliseconds timeout);

    // Reads the next arrival at `target` while driving the initiator; nullopt after `timeout`.
    std::optional<std::uint64_t> receive(InitiatorEnd& initiator, TargetEnd& target, std::chrono::milliseconds timeout);

    // FNV-1a of a complete grain as a reader of `flow` sees it, with its header; FAILs when it is not readable.
    struct ReadBack
    {
        mxlGrainInfo info{};
        std::uint64_t checksum = 0;
        std::uint8_t const* payload = nullptr;
    };
    std::optional<ReadBack> readBack(Flow& flow, std::uint64_t index, std::uint16_t minValidSlices = MXL_GRAIN_VALID_SLICES_ALL);

    // The name of the backend `instance` loaded ("ofi", "ucx"): cases that test one backend's own behaviour skip under
    // the others, saying why.
    std::string backendOf(mxlFabricsInstance instance);

    // The ticket as the JSON text mxlFabricsTargetInfoToString gives, without the NUL.
    std::string ticketText(mxlFabricsTargetInfo ticket);
    // A ticket's "id" or "epoch" (64-bit numbers, decimal strings in the SDK's format).
    std::uint64_t ticketNumber(mxlFabricsTargetInfo ticket, char const* key);

    // The table of the build tree's backend module `name`, entered as the host enters it (ABI of this build); `path`
    // receives the module's file. For tests that present it as an older build would (a shorter table).
    mxlFabricsBackend const& backendTable(std::string const& name, std::string& path);

    // Whether this host can bind an IPv6 loopback endpoint.
    bool hasIpv6Loopback();
}
