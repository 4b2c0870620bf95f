#include "fabrics/backends/ofi/ReceivePool.hpp"

#include "common/Log.hpp"
#include "common/Status.hpp"
#include "fabrics/backends/ofi/OfiContext.hpp"

#include <bit>

namespace mxl::fabrics
{
    namespace
    {
        // A receive's context: its pool's owner above, its buffer's index below.
        constexpr unsigned indexBits = 24;
        constexpr std::uint64_t indexMask = (std::uint64_t{1} << indexBits) - 1;
    }

    ReceivePool::ReceivePool(std::size_t count, std::uint64_t owner, std::uint64_t targetId)
        : _count{count}
        , _owner{owner}
        , _targetId{targetId}
        , _buffers{std::make_unique<std::uint8_t[]>(count * messageReceiveBytes)}
    {
        if (count == 0 || count > indexMask)
        {
            fail(MXL_ERR_INVALID_ARG, "fabrics target {}: {} receive buffers, expected 1 to {}", targetId, count, indexMask);
        }
    }

    void ReceivePool::postAll(Endpoint& endpoint)
    {
        for (std::size_t index = 0; index < _count; ++index)
        {
            post(endpoint, index);
        }
    }

    std::optional<std::uint32_t> ReceivePool::arrive(Completion const& completion, Endpoint& endpoint, MessageRegions const& regions)
    {
        auto const index = static_cast<std::size_t>(idOf(completion.context) & indexMask);
        if (index >= _count)
        {
            return std::nullopt;
        }
        std::optional<std::uint32_t> immediate;
        if (completion.error != 0)
        {
            drop(fmt::format("the receive failed: {} ({})", completion.errorText, completion.error));
        }
        else if (auto const why = placeMessage(buffer(index).first(std::min(completion.length, messageReceiveBytes)), regions))
        {
            drop(*why);
        }
        else if ((completion.flags & FI_REMOTE_CQ_DATA) != 0)
        {
            immediate = static_cast<std::uint32_t>(completion.data);
        }
        post(endpoint, index);
        return immediate;
    }

    std::uint64_t ReceivePool::ownerOf(void* context) noexcept
    {
        return idOf(context) >> indexBits;
    }

    std::span<std::uint8_t> ReceivePool::buffer(std::size_t index) const noexcept
    {
        return {_buffers.get() + index * messageReceiveBytes, messageReceiveBytes};
    }

    void ReceivePool::post(Endpoint& endpoint, std::size_t index)
    {
        // The pool never holds more receives than the endpoint's receive queue takes (OfiTarget.cpp): a full queue
        // would be a provider fault, and a buffer left unposted would shrink the pool for good.
        if (!endpoint.postReceive(buffer(index), nullptr, contextOf((_owner << indexBits) | index)))
        {
            fail(MXL_ERR_UNKNOWN, "fabrics target {}: the receive queue refused receive buffer {} of {}", _targetId, index, _count);
        }
    }

    void ReceivePool::drop(std::string const& why)
    {
        ++_dropped;
        // Every drop is counted; the log says the first and then each power of two, so a flood cannot fill it.
        if (std::has_single_bit(_dropped))
        {
            log::warn("fabrics target {}: dropped a msg transport receive ({}); nothing was placed or reported ({} dropped so far)",
                      _targetId, why, _dropped);
        }
    }
}
