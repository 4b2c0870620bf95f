// Ownership of the mxl handles a tool holds: each is released when it goes out of scope, also when an error unwinds,
// so that a writer's flow is deleted (or handed to the next writer) however the tool ends.
#pragma once

#include <mxl/flow.h>
#include <mxl/mxl.h>

#include <filesystem>
#include <string>

namespace mxl::tools
{
    class Instance
    {
    public:
        // Throws ToolError(DomainUnavailable) naming the domain when it is missing or cannot be opened.
        explicit Instance(std::filesystem::path const& domain);
        ~Instance();

        Instance(Instance const&) = delete;
        Instance& operator=(Instance const&) = delete;

        [[nodiscard]] mxlInstance get() const noexcept
        {
            return _instance;
        }

    private:
        mxlInstance _instance = nullptr;
    };

    class FlowReader
    {
    public:
        // Throws ToolError: FlowNotFound when the flow does not exist, Usage for an id the library rejects, Failure
        // otherwise; the message names the flow and the status.
        FlowReader(Instance const& instance, std::string const& flowId);
        ~FlowReader();

        FlowReader(FlowReader const&) = delete;
        FlowReader& operator=(FlowReader const&) = delete;

        [[nodiscard]] mxlFlowReader get() const noexcept
        {
            return _reader;
        }

    private:
        mxlInstance _instance;
        mxlFlowReader _reader = nullptr;
    };

    class FlowWriter
    {
    public:
        // `origin` names the definition in error messages (e.g. its file). `options` may be empty.
        FlowWriter(Instance const& instance, std::string const& flowDefinition, std::string const& options, std::string const& origin);
        ~FlowWriter();

        FlowWriter(FlowWriter const&) = delete;
        FlowWriter& operator=(FlowWriter const&) = delete;

        [[nodiscard]] mxlFlowWriter get() const noexcept
        {
            return _writer;
        }

        [[nodiscard]] mxlFlowConfigInfo const& config() const noexcept
        {
            return _config;
        }

        // False when the flow already existed: this writer joined it and its configuration was kept.
        [[nodiscard]] bool created() const noexcept
        {
            return _created;
        }

    private:
        mxlInstance _instance;
        mxlFlowWriter _writer = nullptr;
        mxlFlowConfigInfo _config{};
        bool _created = false;
    };
}
