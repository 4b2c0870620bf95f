#include "fabrics/backends/ofi/RdmTarget.hpp"

#include "common/Log.hpp"
#include "common/Status.hpp"
#include "fabrics/backends/ofi/OfiTarget.hpp"

namespace mxl::fabrics
{
    RdmTarget::RdmTarget(OfiDomain const& opened, RegionSpans const& regions, std::size_t cqDepth, std::uint64_t targetId)
        : OfiTarget{opened, regions, cqDepth}
        , _av{_opened.domain}
        , _endpoint{_opened.domain, _opened.info.get(), nullptr}
    {
        _endpoint.bind(_completions);
        _endpoint.bind(_av);
        _regionHold = enableEndpoint(_endpoint, *_opened.info.get(), _opened.traits.provider == MXL_FABRICS_PROVIDER_SHM);
        for (std::size_t i = 0; i < _receives; ++i)
        {
            _endpoint.postReceive(nullptr);
        }
        if (opened.reported.transport == Transport::Msg)
        {
            _pool = std::make_unique<ReceivePool>(messageBuffersToPost(*_opened.info.get(), cqDepth), 0, targetId);
            _pool->postAll(_endpoint);
        }
        log::info("fabrics target {} ready ({}, {} regions of {} bytes)", targetId, _opened.traits.name(), _regions.count(),
                  regions.empty() ? 0 : regions.front().size());
    }

    std::vector<std::uint8_t> RdmTarget::address() const
    {
        return _endpoint.name();
    }

    void RdmTarget::screenConnections(Admission admission)
    {
        if (admission)
        {
            fail(MXL_ERR_UNSUPPORTED_OPERATION,
                 "a {} target receives no connection requests (initiators address it directly), so it cannot screen them",
                 _opened.traits.name());
        }
    }

    std::optional<std::uint32_t> RdmTarget::nextArrival(std::chrono::milliseconds timeout)
    {
        auto const deadline = std::chrono::steady_clock::now() + timeout;
        PollPacer pacer;
        for (;;)
        {
            if (auto completion = _completions.read())
            {
                if (auto immediate = handle(*completion))
                {
                    return immediate;
                }
                continue;
            }
            if (std::chrono::steady_clock::now() >= deadline)
            {
                return std::nullopt;
            }
            pacer.pause(deadline);
        }
    }

    std::optional<std::uint32_t> RdmTarget::handle(Completion const& completion)
    {
        if (_pool && (completion.flags & FI_RECV) != 0)
        {
            return _pool->arrive(completion, _endpoint, _placement);
        }
        if (_receives > 0 && completion.error == 0 && (completion.flags & FI_RECV) != 0)
        {
            _endpoint.postReceive(nullptr);
        }
        return immediateOf(completion);
    }
}
