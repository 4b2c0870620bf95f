// The error entry at the head of a completion or an event queue, read alike from both kinds (fi_cq_readerr and
// fi_eq_readerr): each kind's entry carries fields of its own, the error number and the provider's text are common.
#pragma once

#include "fabrics/backends/ofi/FabricError.hpp"

#include <rdma/fi_errno.h>

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>

namespace mxl::fabrics
{
    // Nothing when no error entry is left. `readError` and `errorString` are the queue kind's fi_*_readerr and
    // fi_*_strerror, `call` names the former and `what` the queue in what a failed read throws. `describe(entry)` makes
    // the Result of the entry's own fields; its `error` (FI_EOTHER where the provider gave none) and `errorText` are
    // filled here.
    template <typename Result, typename Queue, typename Entry, typename Describe>
    std::optional<Result> readQueueError(Queue* queue, ssize_t (*readError)(Queue*, Entry*, std::uint64_t),
                                         char const* (*errorString)(Queue*, int, void const*, char*, std::size_t), char const* call,
                                         char const* what, Describe const& describe)
    {
        Entry entry{};
        auto const code = readError(queue, &entry, 0);
        if (code == -FI_EAGAIN)
        {
            return std::nullopt;
        }
        check(code, call, what);

        Result result = describe(entry);
        result.error = entry.err != 0 ? entry.err : FI_EOTHER;
        result.errorText = errorText(result.error, entry.prov_errno, errorString(queue, entry.prov_errno, entry.err_data, nullptr, 0));
        return result;
    }
}
