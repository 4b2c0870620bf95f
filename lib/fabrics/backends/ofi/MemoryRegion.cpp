#include "fabrics/backends/ofi/MemoryRegion.hpp"

#include "common/Random.hpp"
#include "fabrics/backends/ofi/FabricError.hpp"

#include <sys/uio.h>

namespace mxl::fabrics
{
    MemoryRegion::MemoryRegion(Domain const& domain, void const* base, std::size_t length, std::uint64_t access)
        // libfabric takes non-const iovecs; the initiator's read-only mappings are only ever read by the provider.
        : _base{static_cast<std::uint8_t*>(const_cast<void*>(base))}
        , _length{length}
    {
        iovec iov{_base, length};
        fi_mr_attr attr{};
        attr.mr_iov = &iov;
        attr.iov_count = 1;
        attr.access = access;
        attr.iface = FI_HMEM_SYSTEM;
        // Used only by providers without FI_MR_PROV_KEY (tcp in 1.17): keys must be unique within the domain.
        attr.requested_key = randomId();
        fid_mr* mr = nullptr;
        check(fi_mr_regattr(domain.get(), &attr, 0, &mr), "fi_mr_regattr", fmt::format("{} bytes at {}", length, base));
        _mr = Fid<fid_mr>{mr};
    }
}
