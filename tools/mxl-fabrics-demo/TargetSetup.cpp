#include "TargetSetup.hpp"

#include <TicketSignature.hpp>

#include "Ticket.hpp"
#include "ToolError.hpp"
#include "common/Base64.hpp"
#include <client/FlowDescription.hpp>
#include <client/FlowId.hpp>
#include <client/TextFile.hpp>

#include <client/DeviceFlowOptions.hpp>
#include <client/FabricsInterfaces.hpp>
#include <client/SetupOptionsText.hpp>
#include <client/TargetTicket.hpp>

#include <mxl/fabrics.h>
#include <mxl/flow.h>

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <vector>

namespace mxl::demo
{
    namespace
    {
        // --device leaves audio flows in host memory: libmxl keeps sample rings there (docs/device-flows.md).
        bool isAudio(std::string const& definition)
        {
            auto const description = client::tryParseFlowDescription(definition);
            return description && description->format == "urn:x-nmos:format:audio";
        }
    }

    CreatedFlow createTargetFlow(mxlInstance instance, std::string const& domain, DemoOptions const& options)
    {
        auto const definition = client::readTextFile(options.flow, "flow definition");
        bool const onDevice = options.deviceIndex && !isAudio(definition);
        auto const& writerOptions = onDevice ? options.deviceFlowOptions : options.flowOptions;
        auto const given =
            fmt::format("{}{}", options.flowOptionsFile.empty() ? "" : fmt::format(" with options '{}'", options.flowOptionsFile),
                        onDevice ? fmt::format(" on CUDA device {}", *options.deviceIndex) : "");

        CreatedFlow flow;
        flow.writer =
            client::FlowWriter{instance, definition, writerOptions, fmt::format("'{}'{} in domain '{}'", options.flow, given, domain)};
        flow.flowId = client::flowIdOf(flow.config());
        if (!flow.writer.created())
        {
            fmt::print(stderr, "mxl-fabrics-demo: warning: reusing existing flow {} in domain '{}' (its definition file was ignored)\n",
                       flow.flowId, domain);
        }
        return flow;
    }

    std::string flowLabel(CreatedFlow const& flow)
    {
        return fmt::format("{} ({})", flow.flowId, client::payloadLocationText(flow.config().common));
    }

    std::string targetSetupOptions(DemoOptions const& options)
    {
        client::SetupSettings setup;
        setup.allowInitiators = options.allowInitiators;
        if (options.ticketProof)
        {
            setup.admissionKeyFile = options.ticketKeyFile;
        }
        return client::setupOptionsText(setup);
    }

    void announceTicket(std::string json, std::string const& ticketFile, DemoOptions const& options)
    {
        auto const transport = directory::libraryTicket(json).transport;
        if (options.ticketKeys)
        {
            json = signing::signTicket(json, options.ticketKeys->current, std::chrono::system_clock::now() + options.ticketLifetime);
            fmt::print("Ticket signed with key '{}', valid for {} s\n", options.ticketKeys->current.id, options.ticketLifetime.count());
        }
        if (!ticketFile.empty())
        {
            writeTicketFile(ticketFile, json);
        }
        fmt::print("Transport: {}\n", transport);
        fmt::print("Target info: {}\n", mxl::encodeBase64(json));
        std::fflush(stdout);
    }

    ListeningTarget listenOnFlow(mxlFabricsInstance fabrics, ChosenInterface const& interface, CreatedFlow const& flow,
                                 std::string const& ticketFile, DemoOptions const& options)
    {
        ListeningTarget listening;
        listening.target = client::FabricsTarget{fabrics};
        listening.info = client::setUpTarget(listening.target.get(), interface, flow.writer.get(), targetSetupOptions(options));
        announceTicket(client::ticketText(listening.info.get()), ticketFile, options);
        return listening;
    }

    int startTargetEvents(mxlFabricsTarget target, std::initializer_list<std::pair<mxlFabricsEventType, mxlFabricsEventHandler>> handlers,
                          void* userData)
    {
        for (auto const& [type, handler] : handlers)
        {
            if (auto const status = ::mxlFabricsTargetSetEventHandler(target, type, handler, userData); status != MXL_STATUS_OK)
            {
                tools::runtimeFailure("cannot set the target's event handler of type {} (mxlStatus {})", static_cast<int>(type),
                                      static_cast<int>(status));
            }
        }
        int eventFd = -1;
        if (auto const status = ::mxlFabricsTargetStartEvents(target, 0, &eventFd); status != MXL_STATUS_OK)
        {
            tools::runtimeFailure("cannot start the target's events (mxlStatus {})", static_cast<int>(status));
        }
        return eventFd;
    }

    void dispatchTargetEvents(mxlFabricsTarget target)
    {
        std::size_t dispatched = 0;
        if (auto const status = ::mxlFabricsTargetDispatchEvents(target, 0, &dispatched);
            status != MXL_STATUS_OK && status != MXL_ERR_NOT_READY)
        {
            tools::runtimeFailure("dispatching the target's events failed (mxlStatus {})", static_cast<int>(status));
        }
    }
}
