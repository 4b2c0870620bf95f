// Whether UCX can register CUDA device memory at all: only a UCX built with its cuda transports (cuda_copy, cuda_ipc)
// reports UCS_MEMORY_TYPE_CUDA. Debian's does not.
#pragma once

namespace mxl::fabrics::ucx
{
    // A context of UCX's default configuration lists UCS_MEMORY_TYPE_CUDA among its memory types (ucp_context_query);
    // asked once per process, false where the context cannot be made.
    [[nodiscard]] bool ucxRegistersCudaMemory() noexcept;
}
