#include "fabrics/backends/ofi/MemoryRegion.hpp"

#include "common/Random.hpp"
#include "fabrics/backends/ofi/FabricError.hpp"

#include <rdma/fi_errno.h>

#include <sys/uio.h>

namespace mxl::fabrics
{
    MemoryRegion::MemoryRegion(Domain const& domain, void const* base, std::size_t length, std::uint64_t access, fi_hmem_iface iface,
                               int cudaDevice)
        // libfabric takes non-const iovecs; the initiator's read-only mappings are only ever read by the provider.
        : _base{static_cast<std::uint8_t*>(const_cast<void*>(base))}
        , _length{length}
    {
        iovec iov{_base, length};
        fi_mr_attr attr{};
        attr.mr_iov = &iov;
        attr.iov_count = 1;
        attr.access = access;
        attr.iface = iface;
        if (iface == FI_HMEM_CUDA)
        {
            attr.device.cuda = cudaDevice;
        }
        // Used only by providers without FI_MR_PROV_KEY (tcp in 1.17): keys must be unique within the domain.
        attr.requested_key = randomId();
        fid_mr* mr = nullptr;
        auto const code = fi_mr_regattr(domain.get(), &attr, 0, &mr);
        if (code < 0 && iface == FI_HMEM_CUDA)
        {
            // Whatever the code, the provider cannot take this device's memory: a provider built without CUDA says so
            // only here, though it claims FI_HMEM.
            fail(MXL_ERR_UNSUPPORTED_OPERATION, "registering {} bytes of CUDA device {} memory at {} failed: fi_mr_regattr: {}", length,
                 cudaDevice, base, fi_strerror(static_cast<int>(-code)));
        }
        check(code, "fi_mr_regattr", fmt::format("{} bytes at {}", length, base));
        _mr = Fid<fid_mr>{mr};
    }
}
