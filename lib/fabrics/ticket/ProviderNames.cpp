#include "fabrics/ticket/ProviderNames.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace mxl::fabrics
{
    namespace
    {
        constexpr std::array<std::pair<mxlFabricsProvider, std::string_view>, 5> names{{
            {MXL_FABRICS_PROVIDER_ANY, "any"},
            {MXL_FABRICS_PROVIDER_TCP, "tcp"},
            {MXL_FABRICS_PROVIDER_VERBS, "verbs"},
            {MXL_FABRICS_PROVIDER_EFA, "efa"},
            {MXL_FABRICS_PROVIDER_SHM, "shm"},
        }};
    }

    std::optional<std::string_view> providerName(mxlFabricsProvider provider) noexcept
    {
        auto const found = std::ranges::find(names, provider, &std::pair<mxlFabricsProvider, std::string_view>::first);
        return found != names.end() ? std::optional{found->second} : std::nullopt;
    }

    std::optional<mxlFabricsProvider> providerFromName(std::string_view name) noexcept
    {
        auto const found = std::ranges::find(names, name, &std::pair<mxlFabricsProvider, std::string_view>::second);
        return found != names.end() ? std::optional{found->first} : std::nullopt;
    }
}
