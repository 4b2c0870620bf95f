// The steps of setting a target up that a plain target and each path of a redundant one share: the flow from its
// definition, a reader of it, a fabrics target listening on it with its ticket printed, and the target's events.
#pragma once

#include "DemoOptions.hpp"
#include "InterfaceChoice.hpp"

#include <bridge/TransferUnit.hpp>
#include <client/FabricsHandles.hpp>
#include <client/MxlHandles.hpp>

#include <mxl/fabrics_events.h>
#include <mxl/flowinfo.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>

namespace mxl::demo
{
    // How long a target's loop polls its event descriptors: long enough to keep it idle while nothing arrives, short
    // enough to see a signal or --count promptly.
    constexpr int targetPollTimeoutMs = 200;

    struct CreatedFlow
    {
        client::FlowWriter writer;
        std::string flowId;

        [[nodiscard]] mxlFlowConfigInfo const& config() const noexcept
        {
            return writer.config();
        }
    };

    // Creates the flow of `options.flow` (with `options.flowOptionsFile`) in `instance`, whose domain `domain` names in
    // messages; an existing flow of that id is reused with a warning. Throws ToolError.
    CreatedFlow createTargetFlow(mxlInstance instance, std::string const& domain, DemoOptions const& options);

    // "<uuid> (payloads in host memory)" or "<uuid> (payloads on CUDA device N)": how the target's lines name its flow.
    [[nodiscard]] std::string flowLabel(CreatedFlow const& flow);

    struct ListeningTarget
    {
        client::FabricsTarget target;
        client::OwnedTargetInfo info;
    };

    // The setup options of a target as the command line asks for them (--allow-initiator, --ticket-proof).
    [[nodiscard]] std::string targetSetupOptions(DemoOptions const& options);

    // Prints a target's ticket (`json`, the library's) as "Transport: ..." and "Target info: <base64>", signed when the
    // options carry a key, and writes it to `ticketFile` unless that is empty.
    void announceTicket(std::string json, std::string const& ticketFile, DemoOptions const& options);

    // A fabrics target on `flow`, listening on `interface`, its ticket announced. Throws ToolError naming the flow.
    ListeningTarget listenOnFlow(mxlFabricsInstance fabrics, ChosenInterface const& interface, CreatedFlow const& flow,
                                 std::string const& ticketFile, DemoOptions const& options);

    // Sets the handlers (each called with `userData`), starts the target's events and returns their descriptor.
    int startTargetEvents(mxlFabricsTarget target, std::initializer_list<std::pair<mxlFabricsEventType, mxlFabricsEventHandler>> handlers,
                          void* userData);

    using bridge::bytesPerSlice;

    // Runs the handlers of the events queued now; throws ToolError(Failure) when dispatching fails.
    void dispatchTargetEvents(mxlFabricsTarget target);
}
