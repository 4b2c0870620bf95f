#include "fabrics/backends/ofi/CompletionQueue.hpp"

#include "fabrics/backends/ofi/FabricError.hpp"
#include "fabrics/backends/ofi/QueueError.hpp"
#include "fabrics/backends/ofi/WaitDescriptor.hpp"

#include <rdma/fi_errno.h>

#include <algorithm>

namespace mxl::fabrics
{
    namespace
    {
        // fi_cq_data_entry (completions read) and fi_cq_err_entry (failed ones) name these fields alike.
        template <typename Entry>
        Completion completionOf(Entry const& entry) noexcept
        {
            Completion completion;
            completion.context = entry.op_context;
            completion.flags = entry.flags;
            completion.data = entry.data;
            completion.length = entry.len;
            return completion;
        }
    }

    CompletionQueue::CompletionQueue(Domain const& domain, std::size_t depth, bool waitable)
        : _depth{depth}
        , _waitable{waitable}
        , _taken(std::max<std::size_t>(1, depth))
    {
        fid_cq* queue = nullptr;
        auto const open = [&](fi_wait_obj waitObject)
        {
            fi_cq_attr attr{};
            attr.size = depth;
            attr.format = FI_CQ_FORMAT_DATA;
            attr.wait_obj = waitObject;
            return fi_cq_open(domain.get(), &attr, &queue, nullptr);
        };
        bool withDescriptor = false;
        check(waitable ? openWithDescriptor(open, FI_WAIT_UNSPEC, withDescriptor) : open(FI_WAIT_NONE), "fi_cq_open",
              fmt::format("completion queue of depth {}", depth));
        _queue = Fid<fid_cq>{queue};
        _descriptor = withDescriptor ? waitDescriptorOf(queue->fid) : -1;
    }

    std::optional<Completion> CompletionQueue::read()
    {
        if (auto taken = nextTaken())
        {
            return taken;
        }
        auto const code = fi_cq_read(_queue.get(), _taken.data(), _taken.size());
        if (code == -FI_EAGAIN)
        {
            return std::nullopt;
        }
        if (code == -FI_EAVAIL)
        {
            return readError();
        }
        check(code, "fi_cq_read", "completion queue");
        return keep(static_cast<std::size_t>(code));
    }

    std::optional<Completion> CompletionQueue::readBlocking(std::chrono::milliseconds timeout)
    {
        if (auto taken = nextTaken())
        {
            return taken;
        }
        auto const code = fi_cq_sread(_queue.get(), _taken.data(), _taken.size(), nullptr, static_cast<int>(timeout.count()));
        if (code == -FI_EAGAIN || code == -FI_ETIMEDOUT)
        {
            return std::nullopt;
        }
        if (code == -FI_EAVAIL)
        {
            return readError();
        }
        check(code, "fi_cq_sread", "completion queue");
        return keep(static_cast<std::size_t>(code));
    }

    std::optional<Completion> CompletionQueue::nextTaken() noexcept
    {
        if (_takenNext == _takenCount)
        {
            return std::nullopt;
        }
        return completionOf(_taken[_takenNext++]);
    }

    Completion CompletionQueue::keep(std::size_t count) noexcept
    {
        _takenCount = count;
        _takenNext = 1;
        return completionOf(_taken[0]);
    }

    std::optional<Completion> CompletionQueue::readError()
    {
        return readQueueError<Completion>(_queue.get(), fi_cq_readerr, fi_cq_strerror, "fi_cq_readerr", "completion queue",
                                          completionOf<fi_cq_err_entry>);
    }
}
