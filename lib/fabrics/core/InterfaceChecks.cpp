#include "fabrics/core/InterfaceChecks.hpp"

#include "common/Log.hpp"
#include "common/Status.hpp"
#include "fabrics/ticket/ProviderNames.hpp"

#include <atomic>

namespace mxl::fabrics
{
    namespace
    {
        void checkCaps(mxlFabricsInterfaceCaps const& caps)
        {
            auto const remoteWrite = (caps.flags & MXL_FABRICS_IFACE_CAP_REMOTE_WRITE) != 0;
            if (!remoteWrite && (caps.flags & MXL_FABRICS_IFACE_CAP_SEND_RECEIVE) != 0)
            {
                fail(MXL_ERR_NO_FABRIC, "interface caps ask for SEND_RECEIVE only; transfers need REMOTE_WRITE");
            }
            if (!remoteWrite)
            {
                fail(MXL_ERR_INVALID_ARG, "interface caps {:#x} do not include REMOTE_WRITE", caps.flags);
            }
            // The SDK warns on every setup; once per process, below the default level, is enough to explain it.
            static std::atomic<bool> toldMaxMessageSize{false};
            if (caps.maxMessageSize == 0 && !toldMaxMessageSize.exchange(true))
            {
                log::info("interface caps: maxMessageSize is not set; the provider's own limit is used (said once per process)");
            }
        }
    }

    void checkInterfaceConfig(mxlFabricsInterfaceConfig const& config)
    {
        if (config.provider == MXL_FABRICS_PROVIDER_ANY)
        {
            fail(MXL_ERR_INVALID_STATE, "provider ANY is only a query; choose tcp, verbs, efa or shm (e.g. from mxlFabricsGetInterfaces)");
        }
        if (!providerName(config.provider))
        {
            fail(MXL_ERR_INVALID_ARG, "provider {} is not an mxlFabricsProvider", static_cast<int>(config.provider));
        }
        checkCaps(config.caps);
        auto const& address = config.address;
        auto const hasService = address.service != nullptr && *address.service != '\0';
        auto const hasNode = address.node != nullptr && *address.node != '\0';
        if (!hasNode && hasService)
        {
            fail(MXL_ERR_INVALID_ARG, "service \"{}\" given without a node", address.service);
        }
    }

    void checkInterfaceQuery(mxlFabricsInterfaceConfig const* query)
    {
        if (query != nullptr && !providerName(query->provider))
        {
            fail(MXL_ERR_INVALID_ARG, "query provider {} is not an mxlFabricsProvider", static_cast<int>(query->provider));
        }
    }
}
