#include "DiscreteFlowReader.hpp"

#include "RegularFile.hpp"
#include "Timing.hpp"
#include "common/FlowPaths.hpp"
#include "common/Log.hpp"

#include <algorithm>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mxl
{
    namespace
    {
        // -1 when the file cannot be opened, or is not a flow's file: then reads do not show up in lastReadTime.
        int openAccessFile(std::filesystem::path const& path) noexcept
        {
            try
            {
                return openRegularFile(path, O_RDONLY | O_CLOEXEC).fd.take();
            }
            catch (std::exception const& e)
            {
                log::warn("{}; this reader's reads do not show in the flow's lastReadTime", e.what());
                return -1;
            }
        }
    }

    DiscreteFlowReader::DiscreteFlowReader(Domain const& domain, std::string canonicalId, FlowFiles files)
        : FlowReader{domain, std::move(canonicalId), std::move(files)}
        // Opening read-only needs no write permission; the atime update itself may still be refused (read-only
        // mount, another user's flow), and then reads simply do not show up in lastReadTime.
        , _accessFd{openAccessFile(paths::accessFile(domain.flowDirectory(id())))}
    {
    }

    DiscreteFlowReader::~DiscreteFlowReader()
    {
        if (_accessFd >= 0)
        {
            ::close(_accessFd);
        }
    }

    mxlStatus DiscreteFlowReader::getGrain(std::uint64_t index, std::uint16_t minValidSlices, std::uint64_t timeoutNs, mxlGrainInfo& grain,
                                           std::uint8_t*& payload)
    {
        auto const status =
            waitFor(timing::deadlineAfterNs(timeoutNs), [&] { return tryGetGrain(index, minValidSlices, &grain, &payload); });
        if (status == MXL_STATUS_OK)
        {
            touchAccessFile();
        }
        return checkValidity(status);
    }

    mxlStatus DiscreteFlowReader::waitForGrain(std::uint64_t index, std::uint16_t minValidSlices, std::uint64_t deadlineNs) const
    {
        return checkValidity(waitFor(deadlineNs, [&] { return tryGetGrain(index, minValidSlices, nullptr, nullptr); }));
    }

    mxlStatus DiscreteFlowReader::tryGetGrain(std::uint64_t index, std::uint16_t minValidSlices, mxlGrainInfo* grain,
                                              std::uint8_t** payload) const
    {
        auto const head = headIndex();
        if (index > head)
        {
            return MXL_ERR_OUT_OF_RANGE_TOO_EARLY;
        }
        // The oldest slot aliases head + 1, which the writer may already have open: it is not readable (#692).
        auto const grainCount = std::uint64_t{info().config.discrete.grainCount};
        auto const readableGrains = grainCount > 1 ? grainCount - 1 : grainCount;
        auto const oldest = head + 1 >= readableGrains ? head + 1 - readableGrains : 0;
        if (index < oldest)
        {
            return MXL_ERR_OUT_OF_RANGE_TOO_LATE;
        }
        // The slot's own index tells whether it still holds an older grain or was already reused (#681).
        auto const& header = files().grainHeader(index).info;
        auto const slotIndex = loadAcquire(header.index);
        if (slotIndex != index)
        {
            return slotIndex > index ? MXL_ERR_OUT_OF_RANGE_TOO_LATE : MXL_ERR_OUT_OF_RANGE_TOO_EARLY;
        }
        auto const validSlices = loadAcquire(header.validSlices);
        auto const flags = loadAcquire(header.flags);
        if (validSlices < std::min(minValidSlices, header.totalSlices) && (flags & MXL_GRAIN_FLAG_INVALID) == 0)
        {
            return MXL_ERR_OUT_OF_RANGE_TOO_EARLY;
        }
        if (grain == nullptr)
        {
            return MXL_STATUS_OK;
        }
        std::memcpy(grain, &header, sizeof(mxlGrainInfo));
        // A writer that reopened the slot while we copied has made the copy a mix of two grains.
        if (loadAcquire(header.index) != index)
        {
            return MXL_ERR_OUT_OF_RANGE_TOO_LATE;
        }
        *payload = files().grainPayload(index);
        return MXL_STATUS_OK;
    }

    void DiscreteFlowReader::touchAccessFile() noexcept
    {
        if (_accessFd < 0)
        {
            return;
        }
        auto const now = timing::monotonicNowNs();
        if (_lastTouchNs != 0 && now - _lastTouchNs < accessTouchIntervalNs)
        {
            return;
        }
        _lastTouchNs = now;
        timespec const times[2] = {{0, UTIME_NOW}, {0, UTIME_OMIT}};
        if (::futimens(_accessFd, times) != 0 && (errno == EROFS || errno == EACCES || errno == EPERM))
        {
            // Refused once, refused always: stop paying for the system call.
            ::close(_accessFd);
            _accessFd = -1;
        }
    }
}
