#include "FlowWriter.hpp"

#include "Futex.hpp"
#include "Timing.hpp"
#include "common/SharedAtomics.hpp"

#include "common/Log.hpp"

#include <atomic>

namespace mxl
{
    FlowWriter::FlowWriter(std::string canonicalId, std::filesystem::path flowDirectory, FlowFiles files)
        : _id{std::move(canonicalId)}
        , _flowDirectory{std::move(flowDirectory)}
        , _files{std::move(files)}
    {
        memory = _files.memory();
    }

    bool FlowWriter::deleteFlowIfLastWriter() noexcept
    {
        if (!_files.dataFile().tryLockExclusive())
        {
            return false;
        }
        std::error_code error;
        std::filesystem::remove_all(_flowDirectory, error);
        if (error)
        {
            log::warn("could not delete flow {} at {}: {}", _id, _flowDirectory.string(), error.message());
            return false;
        }
        return true;
    }

    void FlowWriter::advanceHead(std::uint64_t index) noexcept
    {
        auto& runtime = _files.data().info.runtime;
        std::atomic_ref<std::uint64_t> head{runtime.headIndex};
        auto current = head.load(std::memory_order_relaxed);
        while (current < index && !head.compare_exchange_weak(current, index, std::memory_order_release, std::memory_order_relaxed))
        {
        }
        storeRelaxed(runtime.lastWriteTime, timing::taiNowNs());
    }

    void FlowWriter::wakeReaders() noexcept
    {
        auto& counter = _files.data().state.syncCounter;
        std::atomic_ref<std::uint32_t>{counter}.fetch_add(1, std::memory_order_release);
        futex::wakeAll(counter);
    }
}
