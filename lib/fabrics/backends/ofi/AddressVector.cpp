#include "fabrics/backends/ofi/AddressVector.hpp"

#include "fabrics/backends/ofi/FabricError.hpp"

namespace mxl::fabrics
{
    AddressVector::AddressVector(Domain const& domain)
    {
        fi_av_attr attr{};
        attr.type = FI_AV_TABLE;
        attr.count = 16;
        fid_av* av = nullptr;
        check(fi_av_open(domain.get(), &attr, &av, nullptr), "fi_av_open", "address vector");
        _av = Fid<fid_av>{av};
    }

    fi_addr_t AddressVector::insert(std::vector<std::uint8_t> const& address)
    {
        fi_addr_t result = FI_ADDR_NOTAVAIL;
        auto const inserted = fi_av_insert(_av.get(), address.data(), 1, &result, 0, nullptr);
        check(inserted, "fi_av_insert", "target address");
        if (inserted != 1 || result == FI_ADDR_NOTAVAIL)
        {
            fail(MXL_ERR_INVALID_ARG, "fi_av_insert rejected the target's fabric address ({} bytes)", address.size());
        }
        return result;
    }

    void AddressVector::remove(fi_addr_t address) noexcept
    {
        static_cast<void>(fi_av_remove(_av.get(), &address, 1, 0));
    }
}
