#include "fabrics/backends/ofi/EndpointName.hpp"

#include "fabrics/backends/ofi/FabricError.hpp"

#include <rdma/fi_cm.h>

namespace mxl::fabrics
{
    std::vector<std::uint8_t> endpointName(fid_t endpoint, std::string_view object)
    {
        std::vector<std::uint8_t> address(128);
        auto size = address.size();
        check(fi_getname(endpoint, address.data(), &size), "fi_getname", object);
        address.resize(size);
        return address;
    }
}
