// The C functions of device.h: copies through the device module for tools and tests that link no CUDA runtime.
#include <mxl/device.h>

#include "FlowReader.hpp"
#include "FlowWriter.hpp"
#include "Handles.hpp"

namespace
{
    template <typename Flow>
    mxl::device::DeviceRing const& deviceRingOf(Flow const& flow, char const* role)
    {
        auto const* ring = flow.deviceRing();
        if (ring == nullptr)
        {
            mxl::fail(MXL_ERR_INVALID_ARG, "flow {}: the {}'s payloads are in host memory, expected a device flow", flow.id(), role);
        }
        return *ring;
    }

    void requireHost(void const* pointer, char const* name)
    {
        if (pointer == nullptr)
        {
            mxl::fail(MXL_ERR_INVALID_ARG, "{} is NULL, expected host memory", name);
        }
    }
}

extern "C" MXL_EXPORT mxlStatus mxlFlowWriterCopyToDevice(mxlFlowWriter writer, uint8_t* deviceDestination, void const* hostSource,
                                                          size_t bytes)
{
    return mxl::guard(__func__,
                      [&]
                      {
                          auto const& flow = mxl::writerFrom<mxl::FlowWriter>(writer);
                          requireHost(hostSource, "hostSource");
                          deviceRingOf(flow, "writer").copyToDevice(flow.id(), deviceDestination, hostSource, bytes);
                      });
}

extern "C" MXL_EXPORT mxlStatus mxlFlowReaderCopyToHost(mxlFlowReader reader, void* hostDestination, uint8_t const* deviceSource,
                                                        size_t bytes)
{
    return mxl::guard(__func__,
                      [&]
                      {
                          auto const& flow = mxl::readerFrom<mxl::FlowReader>(reader);
                          requireHost(hostDestination, "hostDestination");
                          deviceRingOf(flow, "reader").copyToHost(flow.id(), hostDestination, deviceSource, bytes);
                      });
}
