#include "fabrics/backends/ofi/Domain.hpp"

#include "fabrics/backends/ofi/FabricError.hpp"

namespace mxl::fabrics
{
    Domain::Domain(Fabric const& fabric, Info const& info)
        : _virtualAddresses{(info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) != 0}
    {
        fid_domain* domain = nullptr;
        check(fi_domain(fabric.get(), info.get(), &domain, nullptr), "fi_domain", info->domain_attr->name);
        _domain = Fid<fid_domain>{domain};
    }
}
