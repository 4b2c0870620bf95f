// The file descriptor behind a queue opened with wait object FI_WAIT_FD, which an application's poll can wait on once
// fi_trywait allowed it; -1 where the provider gave the queue another wait object.
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>

namespace mxl::fabrics
{
    inline int waitDescriptorOf(fid& queue) noexcept
    {
        int descriptor = -1;
        if (fi_control(&queue, FI_GETWAIT, &descriptor) != 0)
        {
            return -1;
        }
        return descriptor;
    }

    // Opens a queue with `open(waitObject)`: FI_WAIT_FD first, so that it has a descriptor, else `fallback` where the
    // provider refuses descriptors. Returns open's result for the wait object that worked.
    template <typename Open>
    int openWithDescriptor(Open const& open, fi_wait_obj fallback)
    {
        auto const code = open(FI_WAIT_FD);
        return code == 0 ? 0 : open(fallback);
    }
}
