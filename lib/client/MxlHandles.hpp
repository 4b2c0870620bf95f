// Ownership of the mxl handles a tool holds: each is released when it goes out of scope, also when an error unwinds,
// so that a writer's flow is deleted (or handed to the next writer) however the tool ends.
#pragma once

#include "OwnedHandle.hpp"

#include <mxl/flow.h>
#include <mxl/mxl.h>

#include <cstddef>
#include <filesystem>
#include <string>

namespace mxl::client
{
    class Instance : public OwnedHandle<std::nullptr_t, mxlInstance, ::mxlDestroyInstance>
    {
    public:
        // Throws ClientError(DomainUnavailable) naming the domain when it is missing or cannot be opened.
        explicit Instance(std::filesystem::path const& domain);
    };

    class FlowReader : public OwnedHandle<mxlInstance, mxlFlowReader, ::mxlReleaseFlowReader>
    {
    public:
        using OwnedHandle::OwnedHandle;

        // Throws ClientError: FlowNotFound when the flow does not exist, Usage for an id the library rejects, Failure
        // otherwise; the message names the flow and the status.
        FlowReader(mxlInstance instance, std::string const& flowId);

        FlowReader(Instance const& instance, std::string const& flowId)
            : FlowReader{instance.get(), flowId}
        {
        }
        // A reader must not outlive its instance.
        FlowReader(Instance&&, std::string const&) = delete;
    };

    class FlowWriter : public OwnedHandle<mxlInstance, mxlFlowWriter, ::mxlReleaseFlowWriter>
    {
    public:
        FlowWriter() = default;

        // `origin` names the definition in error messages (e.g. its file). `options` may be empty. Throws ClientError:
        // DomainUnavailable when the domain is not writable, Usage when the library refuses the definition or the
        // options, Failure otherwise.
        FlowWriter(mxlInstance instance, std::string const& flowDefinition, std::string const& options, std::string const& origin);

        FlowWriter(Instance const& instance, std::string const& flowDefinition, std::string const& options, std::string const& origin)
            : FlowWriter{instance.get(), flowDefinition, options, origin}
        {
        }
        // A writer must not outlive its instance.
        FlowWriter(Instance&&, std::string const&, std::string const&, std::string const&) = delete;

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
        struct Created
        {
            mxlInstance instance;
            mxlFlowWriter writer = nullptr;
            mxlFlowConfigInfo config{};
            bool created = false;
        };

        static Created create(mxlInstance instance, std::string const& flowDefinition, std::string const& options,
                              std::string const& origin);
        explicit FlowWriter(Created const& created);

        mxlFlowConfigInfo _config{};
        bool _created = false;
    };

    class FlowSynchronizationGroup : public OwnedHandle<mxlInstance, mxlFlowSynchronizationGroup, ::mxlReleaseFlowSynchronizationGroup>
    {
    public:
        // Throws ClientError(Failure) naming the status.
        explicit FlowSynchronizationGroup(mxlInstance instance);
    };
}
