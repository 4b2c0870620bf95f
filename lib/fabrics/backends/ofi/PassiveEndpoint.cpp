#include "fabrics/backends/ofi/PassiveEndpoint.hpp"

#include "fabrics/backends/ofi/EndpointName.hpp"
#include "fabrics/backends/ofi/FabricError.hpp"

#include <rdma/fi_cm.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

namespace mxl::fabrics
{
    PassiveEndpoint::PassiveEndpoint(Fabric const& fabric, Info const& info, EventQueue const& events)
    {
        fid_pep* pep = nullptr;
        check(fi_passive_ep(fabric.get(), info.get(), &pep, nullptr), "fi_passive_ep", "listening endpoint");
        _pep = Fid<fid_pep>{pep};
        check(fi_pep_bind(pep, &events.get()->fid, 0), "fi_pep_bind", "listening endpoint");
    }

    void PassiveEndpoint::listen()
    {
        check(fi_listen(_pep.get()), "fi_listen", "listening endpoint");
    }

    void PassiveEndpoint::reject(Info const& request) noexcept
    {
        static_cast<void>(fi_reject(_pep.get(), request.get()->handle, nullptr, 0));
    }

    std::vector<std::uint8_t> PassiveEndpoint::name() const
    {
        return endpointName(_pep.fid(), "listening endpoint");
    }
}
