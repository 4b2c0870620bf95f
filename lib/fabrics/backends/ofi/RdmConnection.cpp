#include "fabrics/backends/ofi/RdmConnection.hpp"

#include "fabrics/backends/ofi/PostWrite.hpp"

namespace mxl::fabrics
{
    RdmConnection::RdmConnection(OfiDomain const& opened, CompletionQueue const& completions, OfiPeer& peer)
        : _av{opened.domain}
        , _endpoint{opened.domain, opened.info.get(), nullptr}
        , _peer{peer}
    {
        _endpoint.bind(completions);
        _endpoint.bind(_av);
        _regionHold = enableEndpoint(_endpoint, *opened.info.get(), opened.traits.provider == MXL_FABRICS_PROVIDER_SHM);
        _address = _av.insert(peer.address());
    }

    bool RdmConnection::write(RemoteWrite const& write, std::uint64_t context)
    {
        return postWrite(_endpoint, write, _peer.regions(), _peer.sentHeaders(), _address, context);
    }

    std::optional<std::string> RdmConnection::check()
    {
        return _peer.ended();
    }

    void RdmConnection::disconnect() noexcept {}
}
