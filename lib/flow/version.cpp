#include <mxl/mxl.h>
#include <mxl/version.h>

#include "common/Status.hpp"

extern "C" MXL_EXPORT mxlStatus mxlGetVersion(mxlVersionType* out_version)
{
    if (out_version == nullptr)
    {
        return MXL_ERR_INVALID_ARG;
    }
    *out_version = mxlVersionType{MXL_VERSION_MAJOR, MXL_VERSION_MINOR, MXL_VERSION_PATCH, MXL_VERSION_BUILD, MXL_VERSION_FULL};
    return MXL_STATUS_OK;
}
