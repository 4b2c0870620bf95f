// What UCX's completion callbacks may still reach after their owner closed (a request UCX has not completed holds the
// address of its write or entry): kept for the life of the process, so that a late callback finds it.
#pragma once

#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

namespace mxl::fabrics::ucx
{
    // `what` must keep its elements where they are when moved (a list, a unique_ptr).
    template <typename T>
    void keepForLateCallbacks(T&& what)
    {
        static_assert(!std::is_lvalue_reference_v<T>, "moved in: the caller gives up what it kept");
        // A vector that grows moves what it holds: a move that may throw would be a copy, elsewhere.
        static_assert(std::is_nothrow_move_constructible_v<T>);
        static std::mutex keeping;
        // Never destroyed: a callback may still come while the process exits.
        static auto& kept = *new std::vector<T>;
        std::lock_guard const lock{keeping};
        kept.push_back(std::move(what));
    }
}
