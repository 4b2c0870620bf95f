// A fatal error of a command-line program is a client-layer error (lib/client/ClientError.hpp): its kind is the exit
// status. All tools use the same statuses so that scripts can tell a typo from a missing flow.
#pragma once

#include <client/ClientError.hpp>

namespace mxl::tools
{
    enum class ExitCode : int
    {
        Success = 0,
        Failure = static_cast<int>(client::ErrorKind::Failure),
        Usage = static_cast<int>(client::ErrorKind::Usage),
        DomainUnavailable = static_cast<int>(client::ErrorKind::DomainUnavailable),
        FlowNotFound = static_cast<int>(client::ErrorKind::FlowNotFound),
    };

    using ToolError = client::ClientError;
    using client::badInput;
    using client::ErrorKind;
    using client::runtimeFailure;
}
