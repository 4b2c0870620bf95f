#include "TargetSetup.hpp"

#include <TicketSignature.hpp>

#include "FlowDescription.hpp"
#include "TextFile.hpp"
#include "Ticket.hpp"
#include "ToolError.hpp"
#include "common/Base64.hpp"

#include <DeviceFlowOptions.hpp>
#include <FabricsInterfaces.hpp>
#include <SetupOptionsText.hpp>

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
        std::string formatUuid(std::uint8_t const (&id)[16])
        {
            std::string text;
            for (std::size_t i = 0; i < 16; ++i)
            {
                if (i == 4 || i == 6 || i == 8 || i == 10)
                {
                    text += '-';
                }
                text += fmt::format("{:02x}", id[i]);
            }
            return text;
        }

        // --device leaves audio flows in host memory: libmxl keeps sample rings there (docs/device-flows.md).
        bool isAudio(std::string const& definition)
        {
            auto const description = tools::tryParseFlowDescription(definition);
            return description && description->format == "urn:x-nmos:format:audio";
        }
    }

    CreatedFlow createTargetFlow(mxlInstance instance, std::string const& domain, DemoOptions const& options)
    {
        auto const definition = tools::readTextFile(options.flow, "flow definition");
        bool const onDevice = options.deviceIndex && !isAudio(definition);
        auto const& writerOptions = onDevice ? options.deviceFlowOptions : options.flowOptions;
        auto const given =
            fmt::format("{}{}", options.flowOptionsFile.empty() ? "" : fmt::format(" with options '{}'", options.flowOptionsFile),
                        onDevice ? fmt::format(" on CUDA device {}", *options.deviceIndex) : "");

        CreatedFlow flow;
        mxlFlowWriter writer = nullptr;
        bool created = false;
        auto const status = ::mxlCreateFlowWriter(instance, definition.c_str(), writerOptions.empty() ? nullptr : writerOptions.c_str(),
                                                  &writer, &flow.config, &created);
        if (status == MXL_ERR_UNKNOWN || status == MXL_ERR_INVALID_ARG)
        {
            tools::badInput("flow definition '{}'{} rejected (mxlStatus {}; MXL_LOG_LEVEL=warn shows why)", options.flow, given,
                            static_cast<int>(status));
        }
        if (status != MXL_STATUS_OK)
        {
            tools::runtimeFailure("cannot create a writer for flow definition '{}'{} in domain '{}' (mxlStatus {})", options.flow, given,
                                  domain, static_cast<int>(status));
        }
        flow.writer = FlowWriter{instance, writer};
        flow.flowId = formatUuid(flow.config.common.id);
        if (!created)
        {
            fmt::print(stderr, "mxl-fabrics-demo: warning: reusing existing flow {} in domain '{}' (its definition file was ignored)\n",
                       flow.flowId, domain);
        }
        return flow;
    }

    std::string flowLabel(CreatedFlow const& flow)
    {
        return fmt::format("{} ({})", flow.flowId, tools::payloadLocationText(flow.config.common));
    }

    FlowReader openFlowReader(mxlInstance instance, std::string const& flowId)
    {
        mxlFlowReader reader = nullptr;
        if (auto const status = ::mxlCreateFlowReader(instance, flowId.c_str(), nullptr, &reader); status != MXL_STATUS_OK)
        {
            tools::runtimeFailure("cannot read back flow {} (mxlStatus {})", flowId, static_cast<int>(status));
        }
        return FlowReader{instance, reader};
    }

    ListeningTarget listenOnFlow(mxlFabricsInstance fabrics, ChosenInterface const& interface, CreatedFlow const& flow,
                                 std::string const& ticketFile, DemoOptions const& options)
    {
        ListeningTarget listening;
        mxlFabricsTarget target = nullptr;
        if (auto const status = ::mxlFabricsCreateTarget(fabrics, &target); status != MXL_STATUS_OK)
        {
            tools::runtimeFailure("cannot create a fabrics target (mxlStatus {})", static_cast<int>(status));
        }
        listening.target = FabricsTarget{fabrics, target};

        mxlFabricsTargetConfig config{};
        config.version = MXL_FABRICS_API_VERSION;
        config.interface = interfaceConfig(interface);
        config.writer = flow.writer.get();
        mxlFabricsTargetInfo info = nullptr;
        tools::SetupSettings setup;
        setup.allowInitiators = options.allowInitiators;
        if (options.ticketProof)
        {
            setup.admissionKeyFile = options.ticketKeyFile;
        }
        auto const setupOptions = tools::setupOptionsText(setup);
        auto const status = ::mxlFabricsTargetSetup(target, &config, setupOptions.empty() ? nullptr : setupOptions.c_str(), &info);
        if (status == MXL_ERR_INVALID_ARG)
        {
            tools::badInput("the {} target cannot listen on node '{}' service '{}' (mxlStatus {})", tools::providerName(interface.provider),
                            interface.node, interface.service, static_cast<int>(status));
        }
        if (status != MXL_STATUS_OK)
        {
            tools::runtimeFailure("{} target setup on node '{}' service '{}' for flow {} failed (mxlStatus {})",
                                  tools::providerName(interface.provider), interface.node, interface.service, flowLabel(flow),
                                  static_cast<int>(status));
        }
        listening.info = TargetInfo{info};

        std::size_t size = 0;
        if (auto const sizeStatus = ::mxlFabricsTargetInfoToString(info, nullptr, &size); sizeStatus != MXL_STATUS_OK || size == 0)
        {
            tools::runtimeFailure("cannot serialize the target info (mxlStatus {})", static_cast<int>(sizeStatus));
        }
        std::vector<char> text(size);
        if (auto const textStatus = ::mxlFabricsTargetInfoToString(info, text.data(), &size); textStatus != MXL_STATUS_OK)
        {
            tools::runtimeFailure("cannot serialize the target info (mxlStatus {})", static_cast<int>(textStatus));
        }
        // The size counts the terminating NUL, which belongs neither in the base64 nor in the file.
        std::string json{text.data()};
        if (options.ticketKeys)
        {
            json = signing::signTicket(json, options.ticketKeys->current, std::chrono::system_clock::now() + options.ticketLifetime);
            fmt::print("Ticket signed with key '{}', valid for {} s\n", options.ticketKeys->current.id, options.ticketLifetime.count());
        }
        if (!ticketFile.empty())
        {
            writeTicketFile(ticketFile, json);
        }
        fmt::print("Transport: {}\n", ticketTransport(json));
        fmt::print("Target info: {}\n", mxl::encodeBase64(json));
        std::fflush(stdout);
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

    std::uint64_t bytesPerSlice(mxlFlowConfigInfo const& config) noexcept
    {
        std::uint64_t bytes = 0;
        for (auto const size : config.discrete.sliceSizes)
        {
            bytes += size;
        }
        return bytes;
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
