#include "LoopbackInterface.hpp"

#include "CheckMxlStatus.hpp"

namespace mxl::bench
{
    mxlFabricsInterfaceConfig loopbackInterface(std::string const& provider)
    {
        mxlFabricsInterfaceConfig interface {
        };
        interface.version = MXL_FABRICS_API_VERSION;
        checkMxlStatus(mxlFabricsProviderFromString(provider.c_str(), &interface.provider), "mxlFabricsProviderFromString " + provider);
        interface.caps.version = MXL_FABRICS_API_VERSION;
        interface.caps.flags = MXL_FABRICS_IFACE_CAP_REMOTE_WRITE;
        // shm endpoints stay unnamed: the library then picks a name unique to the process.
        if (provider == "tcp")
        {
            interface.address.node = "127.0.0.1";
        }
        return interface;
    }
}
