// fid_fabric: the provider instance every other object of one target or initiator hangs off.
#pragma once

#include "fabrics/backends/ofi/Fid.hpp"
#include "fabrics/backends/ofi/Info.hpp"

namespace mxl::fabrics
{
    using Fabric = Fid<fid_fabric>;

    // fi_fabric for the provider `info` chose; throws as check() does (FabricError.hpp).
    [[nodiscard]] Fabric openFabric(Info const& info);
}
