// One write of the protocol: local ranges that land back to back in one remote region of the target, from an offset.
// A region is named by its index in the ticket, not by its address and key: only the endpoint that posts the write
// resolves those, so the protocol plans the same writes whatever a transport's keys look like.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include <boost/container/small_vector.hpp>

namespace mxl::fabrics
{
    class TransportMemory;

    // A local range of a write and the registration it lies in.
    struct LocalSegment
    {
        void const* base = nullptr;
        std::size_t length = 0;
        TransportMemory const* memory = nullptr;
    };

    // A write's local ranges: one for a grain's payload piece, a commit or a mark, more for a batch of samples (up to the
    // provider's iov_limit). Held inline up to four, so that planning and posting a grain allocate nothing.
    using LocalSegments = boost::container::small_vector<LocalSegment, 4>;

    struct RemoteWrite
    {
        LocalSegments segments;
        // The index of the region in the ticket, and where in it the first segment lands.
        std::uint32_t remoteRegion = 0;
        std::uint64_t remoteOffset = 0;
        // Remote CQ data, which tells the target that the write arrived: commits only.
        std::optional<std::uint32_t> immediate;
        // The completion only says that the local bytes were read (FI_INJECT_COMPLETE), not that they arrived: for payload
        // writes on providers that order writes, whose commit is delivery-complete and lands after them.
        bool completesWhenRead = false;
        // Of length(), the bytes of the protocol's in-flight mark rather than of the flow's data (batch progress counts
        // only those).
        std::size_t markBytes = 0;

        [[nodiscard]] std::size_t length() const noexcept
        {
            std::size_t total = 0;
            for (auto const& segment : segments)
            {
                total += segment.length;
            }
            return total;
        }
    };
}
