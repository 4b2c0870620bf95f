#include "TargetTransport.hpp"

#include "FabricError.hpp"

namespace mxl::fabrics
{
    std::optional<std::uint32_t> immediateOf(Completion const& completion)
    {
        if (completion.error != 0)
        {
            log::warn("target: a completion failed: {} ({})", completion.errorText, completion.error);
            return std::nullopt;
        }
        if ((completion.flags & FI_REMOTE_CQ_DATA) == 0)
        {
            return std::nullopt;
        }
        return static_cast<std::uint32_t>(completion.data);
    }

    std::size_t receivesToPost(fi_info const& info) noexcept
    {
        auto const needed = ((info.mode | info.rx_attr->mode) & FI_RX_CQ_DATA) != 0;
        return needed ? info.rx_attr->size : 0;
    }
}
