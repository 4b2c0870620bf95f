#include "fabrics/backends/ofi/Fabric.hpp"

#include "fabrics/backends/ofi/FabricError.hpp"

namespace mxl::fabrics
{
    Fabric openFabric(Info const& info)
    {
        fid_fabric* fabric = nullptr;
        check(fi_fabric(info->fabric_attr, &fabric, nullptr), "fi_fabric", info->fabric_attr->prov_name);
        return Fabric{fabric};
    }
}
