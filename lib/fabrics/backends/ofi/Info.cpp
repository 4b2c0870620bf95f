#include "fabrics/backends/ofi/Info.hpp"

#include "fabrics/backends/ofi/FabricError.hpp"

#include <string>

namespace mxl::fabrics
{
    Info Info::hints()
    {
        auto* info = fi_allocinfo();
        if (info == nullptr)
        {
            fail(MXL_ERR_UNKNOWN, "fi_allocinfo: out of memory");
        }
        return Info{info};
    }

    Info Info::query(char const* node, char const* service, std::uint64_t flags, Info const* hints, char const* purpose)
    {
        fi_info* list = nullptr;
        auto const code = fi_getinfo(apiVersion, node, service, flags, hints != nullptr ? hints->get() : nullptr, &list);
        check(code, "fi_getinfo",
              std::string{purpose} + " (node " + (node != nullptr ? node : "<any>") + ", service " +
                  (service != nullptr ? service : "<any>") + ")");
        return Info{list};
    }

    Info Info::adopt(fi_info* info) noexcept
    {
        return Info{info};
    }

    Info Info::duplicate(fi_info const* entry)
    {
        auto* copy = fi_dupinfo(entry);
        if (copy == nullptr)
        {
            fail(MXL_ERR_UNKNOWN, "fi_dupinfo: out of memory");
        }
        return Info{copy};
    }
}
