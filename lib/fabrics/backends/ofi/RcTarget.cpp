#include "fabrics/backends/ofi/RcTarget.hpp"

#include "common/AddressPrefix.hpp"
#include "common/EpollSet.hpp"
#include "fabrics/backends/ofi/FabricError.hpp"
#include "fabrics/backends/ofi/OfiContext.hpp"
#include "fabrics/backends/ofi/OfiTarget.hpp"

#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>

namespace mxl::fabrics
{
    namespace
    {
        // fi_cq_sread/fi_eq_sread slices: connection events are looked at at least this often while waiting.
        constexpr std::chrono::milliseconds eventSlice{50};
        // A reader that keeps finding completions and never arms still reads connection events this often.
        constexpr std::uint32_t readsPerEventRead = 16;

        // "192.0.2.7:40112", "[2001:db8::7]:40112"; "an unknown address" where the provider gives none.
        std::string peerText(fi_info const& request)
        {
            auto const* address = static_cast<sockaddr const*>(request.dest_addr);
            auto const ip = address != nullptr ? IpAddress::of(address, request.dest_addrlen) : std::nullopt;
            if (!ip)
            {
                return "an unknown address";
            }
            auto const port = address->sa_family == AF_INET6 ? reinterpret_cast<sockaddr_in6 const*>(address)->sin6_port
                                                             : reinterpret_cast<sockaddr_in const*>(address)->sin_port;
            return ip->v6 ? fmt::format("[{}]:{}", ip->text(), ntohs(port)) : fmt::format("{}:{}", ip->text(), ntohs(port));
        }
    }

    RcTarget::RcTarget(OfiDomain const& opened, RegionSpans const& regions, std::size_t cqDepth, std::uint64_t targetId)
        : OfiTarget{opened, regions, cqDepth}
        , _id{targetId}
        , _events{_opened.fabric}
        , _listener{_opened.fabric, _opened.info, _events}
        , _messageBuffers{opened.reported.transport == Transport::Msg ? messageBuffersToPost(*_opened.info.get(), cqDepth) : 0}
        , _waitSet{openWaitSet()}
    {
        _listener.listen();
        log::info("fabrics target {} listening ({}, {} regions of {} bytes)", _id, _opened.traits.name(), _regions.count(),
                  regions.empty() ? 0 : regions.front().size());
    }

    RcTarget::~RcTarget()
    {
        for (auto& [id, connection] : _connections)
        {
            std::visit([](auto& state) { state.endpoint.shutdown(); }, connection);
        }
    }

    int RcTarget::openWaitSet() const
    {
        if (_completions.descriptor() < 0 || _events.descriptor() < 0)
        {
            return -1;
        }
        return openEpollSet({_completions.descriptor(), _events.descriptor()}, fmt::format("fabrics target {}", _id));
    }

    int RcTarget::waitDescriptor() const noexcept
    {
        return _waitSet.get();
    }

    bool RcTarget::arm()
    {
        if (_completions.holdsTaken())
        {
            return false;
        }
        // An event queue that gave no event since it was armed stays armed: what comes makes its descriptor readable.
        std::array<fid*, 2> queues{&_completions.get()->fid, &_events.get()->fid};
        auto const code = fi_trywait(_opened.fabric.get(), queues.data(), _eventsToArm ? 2 : 1);
        if (code == -FI_EAGAIN)
        {
            // The reads that follow are of the same wake, whose events were read.
            _eventsDue = false;
            return false;
        }
        check(static_cast<int>(code), "fi_trywait", "the target's queues");
        _eventsToArm = false;
        _eventsDue = true;
        return true;
    }

    std::vector<std::uint8_t> RcTarget::address() const
    {
        return _listener.name();
    }

    std::optional<std::uint32_t> RcTarget::nextArrival(std::chrono::milliseconds timeout)
    {
        auto const deadline = std::chrono::steady_clock::now() + timeout;
        for (;;)
        {
            if (timeout.count() > 0 || _eventsDue || ++_readsSinceEvents >= readsPerEventRead)
            {
                readEvents();
            }
            if (auto completion = _completions.read())
            {
                if (auto immediate = handle(*completion))
                {
                    return immediate;
                }
                continue;
            }
            _eventsDue = true;
            auto const now = std::chrono::steady_clock::now();
            if (now >= deadline)
            {
                return std::nullopt;
            }
            auto const slice =
                std::clamp(std::chrono::ceil<std::chrono::milliseconds>(deadline - now), std::chrono::milliseconds{1}, eventSlice);
            if (_connections.empty())
            {
                if (auto event = _events.readBlocking(slice))
                {
                    _eventsToArm = true;
                    handle(*event);
                }
            }
            else if (auto completion = _completions.readBlocking(slice))
            {
                if (auto immediate = handle(*completion))
                {
                    return immediate;
                }
            }
        }
    }

    void RcTarget::readEvents()
    {
        while (auto event = _events.read())
        {
            _eventsToArm = true;
            handle(*event);
        }
        _eventsDue = false;
        _readsSinceEvents = 0;
    }

    void RcTarget::handle(Event const& event)
    {
        if (event.source == _listener.fid())
        {
            if (event.error != 0)
            {
                log::warn("fabrics target {}: listener error: {}", _id, event.errorText);
            }
            else if (event.type == FI_CONNREQ)
            {
                accept(event.request, event.privateData);
            }
            return;
        }
        auto const id = event.source != nullptr ? idOf(event.source->context) : 0;
        auto const found = _connections.find(id);
        if (found == _connections.end())
        {
            return;
        }
        // Only a connection that was reported up is reported down: one that failed while being accepted never was.
        auto const established = std::holds_alternative<Established>(found->second);
        if (event.error != 0)
        {
            log::warn("fabrics target {}: connection {} failed: {}", _id, id, event.errorText);
            _connections.erase(found);
            if (established)
            {
                reportConnection({id, false, event.errorText});
            }
        }
        else if (event.type == FI_CONNECTED)
        {
            auto& accepting = std::get<Accepting>(found->second);
            auto const peer = accepting.peer;
            found->second = Established{std::move(accepting.pool), std::move(accepting.endpoint), peer};
            log::info("fabrics target {}: initiator connected (connection {} from {})", _id, id, peer);
            warnIfSecondWriter(id, peer);
            reportConnection({id, true, {}});
        }
        else if (event.type == FI_SHUTDOWN)
        {
            log::info("fabrics target {}: initiator disconnected (connection {})", _id, id);
            _connections.erase(found);
            if (established)
            {
                reportConnection({id, false, "the initiator closed the connection"});
            }
        }
    }

    void RcTarget::warnIfSecondWriter(std::uint64_t id, std::string const& peer) const
    {
        for (auto const& [otherId, other] : _connections)
        {
            if (auto const* established = std::get_if<Established>(&other); established != nullptr && otherId != id)
            {
                log::warn("fabrics target {}: a second initiator connected (connection {} from {}) while connection {} from {} is up: "
                          "both write into this target's ring and their grains interleave (one ticket used by two initiators?); "
                          "a first connection that died unnoticed (a cut link) stays up until the transport notices",
                          _id, id, peer, otherId, established->peer);
                return;
            }
        }
    }

    void RcTarget::screenConnections(Admission admission)
    {
        _admission = std::move(admission);
    }

    void RcTarget::accept(Info const& request, std::vector<std::uint8_t> const& privateData)
    {
        if (_admission)
        {
            auto const* asked = request.get();
            std::span<std::uint8_t const> peer;
            if (asked->dest_addr != nullptr)
            {
                peer = {static_cast<std::uint8_t const*>(asked->dest_addr), asked->dest_addrlen};
            }
            if (!_admission({peer, privateData}))
            {
                _listener.reject(request);
                return;
            }
        }
        auto const id = _nextConnectionId++;
        try
        {
            Endpoint endpoint{_opened.domain, request.get(), contextOf(id)};
            endpoint.bind(_events);
            endpoint.bind(_completions);
            endpoint.enable();
            for (std::size_t i = 0; i < _receives; ++i)
            {
                endpoint.postReceive(contextOf(id));
            }
            std::unique_ptr<ReceivePool> pool;
            if (_messageBuffers > 0)
            {
                pool = std::make_unique<ReceivePool>(_messageBuffers, id, _id);
                pool->postAll(endpoint);
            }
            endpoint.accept();
            _connections.emplace(id, Accepting{std::move(pool), std::move(endpoint), peerText(*request.get())});
        }
        catch (Error const& e)
        {
            // A failed accept must not wedge the target: the listener stays up for the next request.
            log::warn("fabrics target {}: could not accept a connection request: {}", _id, e.what());
        }
    }

    std::optional<std::uint32_t> RcTarget::handle(Completion const& completion)
    {
        if (_messageBuffers > 0 && (completion.flags & FI_RECV) != 0)
        {
            auto const found = _connections.find(ReceivePool::ownerOf(completion.context));
            if (found == _connections.end())
            {
                return std::nullopt;
            }
            return std::visit([&](auto& state) { return state.pool->arrive(completion, state.endpoint, _placement); }, found->second);
        }
        if (_receives > 0 && completion.error == 0 && (completion.flags & FI_RECV) != 0)
        {
            auto const found = _connections.find(idOf(completion.context));
            if (found != _connections.end())
            {
                std::visit([&](auto& state) { state.endpoint.postReceive(completion.context); }, found->second);
            }
        }
        return immediateOf(completion);
    }
}
