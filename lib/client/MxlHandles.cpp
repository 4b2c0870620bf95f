#include "MxlHandles.hpp"

#include "ClientError.hpp"
#include "common/StatusName.hpp"

#include <fmt/format.h>

namespace mxl::client
{
    Instance::Instance(std::filesystem::path const& domain)
        : OwnedHandle{nullptr, mxlCreateInstance(domain.c_str(), nullptr)}
    {
        if (get() == nullptr)
        {
            throw ClientError{ErrorKind::DomainUnavailable,
                              fmt::format("cannot open domain '{}' (expected an existing, readable directory; the library logs the reason)",
                                          domain.string())};
        }
    }

    namespace
    {
        mxlFlowReader createReader(mxlInstance instance, std::string const& flowId)
        {
            mxlFlowReader reader = nullptr;
            auto const status = mxlCreateFlowReader(instance, flowId.c_str(), nullptr, &reader);
            switch (status)
            {
            case MXL_STATUS_OK:
                return reader;
            case MXL_ERR_FLOW_NOT_FOUND:
                throw ClientError{ErrorKind::FlowNotFound, fmt::format("flow {} not found", flowId)};
            case MXL_ERR_INVALID_ARG:
                throw ClientError{ErrorKind::Usage, fmt::format("flow id '{}' was rejected: {}", flowId, statusName(status))};
            default:
                throw ClientError{ErrorKind::Failure, fmt::format("cannot read flow {}: {}", flowId, statusName(status))};
            }
        }
    }

    FlowWriter::Created FlowWriter::create(mxlInstance instance, std::string const& flowDefinition, std::string const& options,
                                           std::string const& origin)
    {
        Created result{instance};
        auto const status = mxlCreateFlowWriter(instance, flowDefinition.c_str(), options.empty() ? nullptr : options.c_str(),
                                                &result.writer, &result.config, &result.created);
        switch (status)
        {
        case MXL_STATUS_OK:
            return result;
        case MXL_ERR_PERMISSION_DENIED:
            throw ClientError{ErrorKind::DomainUnavailable,
                              fmt::format("cannot create the flow of {}: the domain is not writable ({})", origin, statusName(status))};
        case MXL_ERR_UNKNOWN:
        case MXL_ERR_INVALID_ARG:
            throw ClientError{ErrorKind::Usage,
                              fmt::format("the flow definition {} or its options were rejected ({}; the library logs the reason)", origin,
                                          statusName(status))};
        default:
            throw ClientError{ErrorKind::Failure, fmt::format("cannot create the flow of {}: {}", origin, statusName(status))};
        }
    }

    FlowReader::FlowReader(mxlInstance instance, std::string const& flowId)
        : OwnedHandle{instance, createReader(instance, flowId)}
    {
    }

    FlowWriter::FlowWriter(mxlInstance instance, std::string const& flowDefinition, std::string const& options, std::string const& origin)
        : FlowWriter{create(instance, flowDefinition, options, origin)}
    {
    }

    FlowWriter::FlowWriter(Created const& created)
        : OwnedHandle{created.instance, created.writer}
        , _config{created.config}
        , _created{created.created}
    {
    }

    FlowSynchronizationGroup::FlowSynchronizationGroup(mxlInstance instance)
        : OwnedHandle{instance, [instance]
                      {
                          mxlFlowSynchronizationGroup group = nullptr;
                          if (auto const status = mxlCreateFlowSynchronizationGroup(instance, &group); status != MXL_STATUS_OK)
                          {
                              runtimeFailure("cannot create a flow synchronization group: {}", statusName(status));
                          }
                          return group;
                      }()}
    {
    }
}
