#include "RdmTarget.hpp"

#include "common/Log.hpp"

namespace mxl::fabrics
{
    RdmTarget::RdmTarget(SelectedInterface selected, RegionSpans const& regions, std::size_t cqDepth)
        : _info{std::move(selected.info)}
        , _fabric{_info}
        , _domain{_fabric, _info}
        , _completions{_domain, cqDepth, selected.traits->blockingCompletions}
        , _av{_domain}
        , _regions{_domain, regions, FI_REMOTE_WRITE}
        , _endpoint{_domain, _info.get(), nullptr}
        , _receives{receivesToPost(*_info.get())}
    {
        _endpoint.bind(_completions);
        _endpoint.bind(_av);
        _regionHold = enableEndpoint(_endpoint, *_info.get(), selected.traits->provider == MXL_FABRICS_PROVIDER_SHM);
        for (std::size_t i = 0; i < _receives; ++i)
        {
            _endpoint.postReceive(nullptr);
        }
        _ticket.id = randomId();
        _ticket.epoch = randomId();
        _ticket.fabricAddress = _endpoint.name();
        _ticket.addressFormat = _info->addr_format;
        _ticket.provider = selected.traits->provider;
        _ticket.regions = _regions.remote(_domain);
        log::info("fabrics target {} ready ({}, {} regions of {} bytes)", _ticket.id, selected.traits->name, _regions.count(),
                  regions.empty() ? 0 : regions.front().size());
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
        if (_receives > 0 && completion.error == 0 && (completion.flags & FI_RECV) != 0)
        {
            _endpoint.postReceive(nullptr);
        }
        return immediateOf(completion);
    }
}
