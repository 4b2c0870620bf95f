// The C functions of mxl.h (mxlGetVersion lives in version.cpp).
#include <mxl/mxl.h>

#include "Handles.hpp"
#include "Instance.hpp"

#include <cerrno>
#include <cstring>
#include <sys/statfs.h>

namespace
{
    constexpr long tmpfsMagic = 0x01021994;
    constexpr long ramfsMagic = static_cast<long>(0x858458f6);
}

extern "C" MXL_EXPORT mxlInstance mxlCreateInstance(char const* in_mxlDomain, char const* in_options)
{
    mxlInstance instance = nullptr;
    mxl::guard(__func__, [&] { instance = new mxlInstance_t{in_mxlDomain, in_options}; });
    return instance;
}

extern "C" MXL_EXPORT mxlStatus mxlGarbageCollectFlows(mxlInstance in_instance)
{
    return mxl::guard(__func__, [&] { mxl::instanceFrom(in_instance).domain().garbageCollect(); });
}

extern "C" MXL_EXPORT mxlStatus mxlIsTmpFs(char const* in_path, bool* out_isTmpFs)
{
    return mxl::guard(__func__,
                      [&]
                      {
                          auto& isTmpFs = mxl::required(out_isTmpFs, "out_isTmpFs");
                          if (in_path == nullptr)
                          {
                              mxl::fail(MXL_ERR_INVALID_ARG, "in_path is NULL, expected a directory");
                          }
                          struct statfs status
                          {
                          };
                          if (::statfs(in_path, &status) != 0)
                          {
                              mxl::fail(MXL_ERR_UNKNOWN, "statfs {}: {}", in_path, std::strerror(errno));
                          }
                          isTmpFs = status.f_type == tmpfsMagic || status.f_type == ramfsMagic;
                      });
}

extern "C" MXL_EXPORT mxlStatus mxlDestroyInstance(mxlInstance in_instance)
{
    return mxl::guard(__func__, [&] { delete &mxl::instanceFrom(in_instance); });
}
