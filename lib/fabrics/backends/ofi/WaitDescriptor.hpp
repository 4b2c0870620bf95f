// The file descriptor behind a queue opened with wait object FI_WAIT_FD, which an application's poll can wait on once
// fi_trywait allowed it. FI_GETWAIT's argument depends on the wait object (a pollfd set, a mutex and condition), so it is
// asked only of queues opened with FI_WAIT_FD.
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>

namespace mxl::fabrics
{
    // Opens a queue with `open(waitObject)`: FI_WAIT_FD first, so that it has a descriptor, else `fallback` where the
    // provider refuses descriptors. Returns open's result; `withDescriptor` says whether FI_WAIT_FD was taken.
    template <typename Open>
    int openWithDescriptor(Open const& open, fi_wait_obj fallback, bool& withDescriptor)
    {
        withDescriptor = open(FI_WAIT_FD) == 0;
        return withDescriptor ? 0 : open(fallback);
    }

    // The descriptor of a queue opened with FI_WAIT_FD; -1 where the provider gives none.
    inline int waitDescriptorOf(fid& queue) noexcept
    {
        int descriptor = -1;
        if (fi_control(&queue, FI_GETWAIT, &descriptor) != 0)
        {
            return -1;
        }
        return descriptor;
    }
}
