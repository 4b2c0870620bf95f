// Fake fabrics backends that fail the loader's checks in one way each (FAKE_<behaviour>, tests/fabrics-loader's
// CMakeLists.txt): an entry the loader must refuse never gets as far as a transport, so no table function is called.
#include "fabrics/transport/fabrics_backend.h"

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
        table.structSize = sizeof(mxlFabricsBackend);
        table.name = "fake";
        table.last_error = lastError;
        return table;
    }

    mxlFabricsBackend const table = makeTable();
}

extern "C" MXL_EXPORT mxlStatus mxlFabricsBackendEntry(uint32_t, mxlFabricsBackendHost const*, mxlFabricsBackend const** out_backend)
{
    *out_backend = &table;
#    if defined(FAKE_FAILING)
    return MXL_ERR_NO_FABRIC;
#    else
    return MXL_STATUS_OK;
#    endif
}

#endif
