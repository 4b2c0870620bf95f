// fid_fabric: the provider instance every other object of one target or initiator hangs off.
#pragma once

#include "fabrics/backends/ofi/Fid.hpp"
#include "fabrics/backends/ofi/Info.hpp"

namespace mxl::fabrics
{
    class Fabric
    {
    public:
        explicit Fabric(Info const& info);

        [[nodiscard]] fid_fabric* get() const noexcept
        {
            return _fabric.get();
        }

    private:
        Fid<fid_fabric> _fabric;
    };
}
