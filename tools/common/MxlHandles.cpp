#include "MxlHandles.hpp"

#include "common/StatusName.hpp"
#include "ToolError.hpp"

#include <fmt/format.h>

namespace mxl::tools
{
    Instance::Instance(std::filesystem::path const& domain)
        : _instance{mxlCreateInstance(domain.c_str(), nullptr)}
    {
        if (_instance == nullptr)
        {
            throw ToolError{ExitCode::DomainUnavailable,
                            fmt::format("cannot open domain '{}' (expected an existing, readable directory; the library logs the reason)",
                                        domain.string())};
        }
    }

    Instance::~Instance()
    {
        mxlDestroyInstance(_instance);
    }

    FlowReader::FlowReader(Instance const& instance, std::string const& flowId)
        : _instance{instance.get()}
    {
        auto const status = mxlCreateFlowReader(_instance, flowId.c_str(), nullptr, &_reader);
        switch (status)
        {
        case MXL_STATUS_OK:
            return;
        case MXL_ERR_FLOW_NOT_FOUND:
            throw ToolError{ExitCode::FlowNotFound, fmt::format("flow {} not found", flowId)};
        case MXL_ERR_INVALID_ARG:
            throw ToolError{ExitCode::Usage, fmt::format("flow id '{}' was rejected: {}", flowId, statusName(status))};
        default:
            throw ToolError{ExitCode::Failure, fmt::format("cannot read flow {}: {}", flowId, statusName(status))};
        }
    }

    FlowReader::~FlowReader()
    {
        mxlReleaseFlowReader(_instance, _reader);
    }

    FlowWriter::FlowWriter(Instance const& instance, std::string const& flowDefinition, std::string const& options,
                           std::string const& origin)
        : _instance{instance.get()}
    {
        auto const status = mxlCreateFlowWriter(_instance, flowDefinition.c_str(), options.empty() ? nullptr : options.c_str(), &_writer,
                                                &_config, &_created);
        switch (status)
        {
        case MXL_STATUS_OK:
            return;
        case MXL_ERR_PERMISSION_DENIED:
            throw ToolError{ExitCode::DomainUnavailable,
                            fmt::format("cannot create the flow of {}: the domain is not writable ({})", origin, statusName(status))};
        case MXL_ERR_UNKNOWN:
            throw ToolError{ExitCode::Usage,
                            fmt::format("the flow definition {} or its options were rejected ({}; the library logs the reason)", origin,
                                        statusName(status))};
        default:
            throw ToolError{ExitCode::Failure, fmt::format("cannot create the flow of {}: {}", origin, statusName(status))};
        }
    }

    FlowWriter::~FlowWriter()
    {
        mxlReleaseFlowWriter(_instance, _writer);
    }
}
