// Setting a fabrics target up on a flow and reading its ticket back: what every program that receives a flow over a
// fabric does first. Header-only, like FabricsHandles.hpp, so that programs without fabrics never link libmxl-fabrics.
#pragma once

#include "ClientError.hpp"
#include "FabricsHandles.hpp"
#include "FabricsInterfaces.hpp"
#include "common/StatusName.hpp"

#include <mxl/fabrics.h>
#include <mxl/flow.h>

#include <string>
#include <vector>

namespace mxl::client
{
    // Sets `target` up to listen on `interface` and receive into `writer`, with `setupOptions` (may be empty); returns
    // the target's info. Throws ClientError naming the provider, node, service and status: Usage when the library refuses
    // the interface or the options (INVALID_ARG), Failure otherwise.
    inline OwnedTargetInfo setUpTarget(mxlFabricsTarget target, FabricsInterface const& interface, mxlFlowWriter writer,
                                       std::string const& setupOptions)
    {
        auto config = endpointConfig<mxlFabricsTargetConfig>(interface);
        config.writer = writer;
        mxlFabricsTargetInfo info = nullptr;
        auto const status = ::mxlFabricsTargetSetup(target, &config, setupOptionsOrNull(setupOptions), &info);
        if (status != MXL_STATUS_OK)
        {
            throw ClientError{status == MXL_ERR_INVALID_ARG ? ErrorKind::Usage : ErrorKind::Failure,
                              fmt::format("the {} target cannot listen on node '{}' service '{}': {}", providerName(interface.provider),
                                          interface.node, interface.service, statusName(status))};
        }
        return OwnedTargetInfo{info};
    }

    // The target info's JSON, the ticket initiators need (without the NUL the size protocol counts). Throws
    // ClientError(Failure).
    inline std::string ticketText(mxlFabricsTargetInfo info)
    {
        std::size_t size = 0;
        ::mxlFabricsTargetInfoToString(info, nullptr, &size);
        std::vector<char> text(size + 1, '\0');
        if (auto const status = ::mxlFabricsTargetInfoToString(info, text.data(), &size); status != MXL_STATUS_OK || size == 0)
        {
            runtimeFailure("cannot serialize the target info: {}", statusName(status));
        }
        return text.data();
    }
}
