// The providers of the API by name: the words of mxlFabricsProviderToString, which tickets carry and which are also
// libfabric's prov_name.
#pragma once

#include <mxl/fabrics.h>

#include <optional>
#include <string_view>

namespace mxl::fabrics
{
    // The API string of any valid enum value, "any" included.
    [[nodiscard]] std::optional<std::string_view> providerName(mxlFabricsProvider provider) noexcept;
    [[nodiscard]] std::optional<mxlFabricsProvider> providerFromName(std::string_view name) noexcept;
}
