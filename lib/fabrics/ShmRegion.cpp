#include "ShmRegion.hpp"

#include <rdma/fabric.h>

#include <algorithm>
#include <string_view>

namespace mxl::fabrics
{
    std::optional<std::filesystem::path> shmRegionOf(TargetInfo const& ticket)
    {
        constexpr std::string_view scheme{"fi_shm://"};
        if (ticket.provider != MXL_FABRICS_PROVIDER_SHM || ticket.addressFormat != FI_ADDR_STR)
        {
            return std::nullopt;
        }
        auto const& bytes = ticket.fabricAddress;
        auto const end = std::find(bytes.begin(), bytes.end(), std::uint8_t{0});
        std::string_view const address{reinterpret_cast<char const*>(bytes.data()), static_cast<std::size_t>(end - bytes.begin())};
        if (!address.starts_with(scheme) || address.size() == scheme.size() || address.find('/', scheme.size()) != std::string_view::npos)
        {
            return std::nullopt;
        }
        return std::filesystem::path{"/dev/shm"} / std::string{address.substr(scheme.size())};
    }
}
