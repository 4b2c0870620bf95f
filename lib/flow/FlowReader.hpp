// What discrete and continuous readers share: the read-only mapping, the flow-validity check and the futex wait loop.
#pragma once

#include "Domain.hpp"
#include "FlowFiles.hpp"
#include "Futex.hpp"
#include "Timing.hpp"
#include "common/SharedAtomics.hpp"

#include "common/FlowMemory.hpp"

#include <mxl/flow.h>

#include <filesystem>
#include <string>

namespace mxl
{
    class FlowReader : public mxlFlowReader_t
    {
    public:
        // `files` is the flow mapped read-only by `domain`.
        FlowReader(Domain const& domain, std::string canonicalId, FlowFiles files);

        [[nodiscard]] std::string const& id() const noexcept
        {
            return _id;
        }

        [[nodiscard]] mxlFlowInfo const& info() const noexcept
        {
            return _files.data().info;
        }

        [[nodiscard]] std::uint64_t headIndex() const noexcept
        {
            return loadAcquire(info().runtime.headIndex);
        }

        // False once the flow was deleted or re-created under us (its data file is gone or is another inode).
        [[nodiscard]] bool isFlowValid() const noexcept;

        // A device flow's payload ring; nullptr for a host flow.
        [[nodiscard]] device::DeviceRing const* deviceRing() const noexcept
        {
            return _files.deviceRing();
        }

    protected:
        [[nodiscard]] FlowFiles const& files() const noexcept
        {
            return _files;
        }

        // Repeats `attempt` (returning mxlStatus) while it reports TOO_EARLY, sleeping on the flow's sync counter until
        // the CLOCK_MONOTONIC `deadlineNs`. Reading the counter before the attempt means a commit landing in between
        // changes it, and the wait returns at once instead of missing the wake-up.
        template <typename Attempt>
        mxlStatus waitFor(std::uint64_t deadlineNs, Attempt&& attempt) const
        {
            auto const& counter = _files.data().state.syncCounter;
            while (true)
            {
                auto const seen = loadAcquire(counter);
                auto const status = attempt();
                if (status != MXL_ERR_OUT_OF_RANGE_TOO_EARLY || timing::monotonicNowNs() >= deadlineNs)
                {
                    return status;
                }
                futex::waitUntil(counter, seen, deadlineNs);
            }
        }

        // Out-of-range answers from a flow that no longer exists become FLOW_INVALID: the caller must re-create the reader.
        [[nodiscard]] mxlStatus checkValidity(mxlStatus status) const noexcept;

    private:
        std::string _id;
        std::filesystem::path _dataPath;
        FlowFiles _files;
    };
}
