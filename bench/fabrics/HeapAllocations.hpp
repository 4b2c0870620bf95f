// How many times this process has allocated from the C++ heap (every operator new, in the bench and in the libraries
// it loads): the bench replaces the global operator new of its executable to count them, so that a row shows what a
// transfer allocates on each side (a hot path should allocate nothing per grain).
#pragma once

#include <cstdint>

namespace mxl::bench
{
    [[nodiscard]] std::uint64_t heapAllocations() noexcept;
}
