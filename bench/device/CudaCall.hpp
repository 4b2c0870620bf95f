// The CUDA runtime's errors in the benches' error form: an exception naming the call, the runtime's words and the
// error's name.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

namespace mxl::bench::device
{
    // "<string> (<name>)", as the runtime says it: "out of memory (cudaErrorMemoryAllocation)".
    std::string cudaErrorText(cudaError_t error);

    // Throws std::runtime_error "<what>: <cudaErrorText>" unless `error` is cudaSuccess.
    void checkCuda(cudaError_t error, std::string const& what);
}
