// Fake fabrics backends that fail the loader's checks in one way each (FAKE_<behaviour>, tests/fabrics-loader's
// CMakeLists.txt): an entry the loader must refuse never gets as far as a transport, so no table function is called.
#include "fabrics/transport/fabrics_backend.h"

#include <cstddef>

#if defined(FAKE_NO_ENTRY)

// Exports a symbol, just not the entry.
extern "C" MXL_EXPORT int fakeBackendWithoutEntry()
{
    return 0;
}

#else

namespace
{
    char const* lastError()
    {
        return "fake transport: no device answered";
    }

    mxlFabricsBackend makeTable()
    {
        mxlFabricsBackend table{};
#    if defined(FAKE_ABI2)
        table.abiVersion = 2u << 16;
#    else
        table.abiVersion = MXL_FABRICS_BACKEND_ABI_VERSION;
#    endif
#    if defined(FAKE_ABI11)
        // A backend built against ABI 1.1: its table ends before domain_open_transport.
        table.abiVersion = (1u << 16) | 1u;
        table.structSize = MXL_FABRICS_BACKEND_TABLE_1_1_SIZE;
#    elif defined(FAKE_SHORT)
        table.structSize = MXL_FABRICS_BACKEND_TABLE_1_1_SIZE - sizeof(void*);
#    else
        table.structSize = sizeof(mxlFabricsBackend);
#    endif
        table.name = "fake";
        table.last_error = lastError;
        return table;
    }

    mxlFabricsBackend const table = makeTable();
}

extern "C" MXL_EXPORT mxlStatus mxlFabricsBackendEntry(uint32_t, [[maybe_unused]] mxlFabricsBackendHost const* host,
                                                       mxlFabricsBackend const** out_backend)
{
    *out_backend = &table;
#    if defined(FAKE_FAILING)
    // A line through the host's sink first, as a backend's mxl::log lines go (transport/HostLog.hpp).
    if (host->structSize >= offsetof(mxlFabricsBackendHost, log) + sizeof(host->log) && host->log != nullptr)
    {
        char const line[] = "fake transport: probing devices";
        host->log(MXL_FABRICS_BACKEND_LOG_WARN, line, sizeof(line) - 1);
    }
    return MXL_ERR_NO_FABRIC;
#    else
    return MXL_STATUS_OK;
#    endif
}

#endif
