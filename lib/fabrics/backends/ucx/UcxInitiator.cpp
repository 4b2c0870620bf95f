#include "fabrics/backends/ucx/UcxInitiator.hpp"

#include "common/Log.hpp"
#include "fabrics/backends/ucx/UcxConnection.hpp"
#include "fabrics/backends/ucx/UcxError.hpp"
#include "fabrics/backends/ucx/UcxLateCallbacks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <iterator>

namespace mxl::fabrics::ucx
{
    namespace
    {
        // Writes in flight when the core asks for the backend's default: as many as libfabric tcp's transmit queue.
        constexpr std::size_t defaultDepth = 256;
    }

    UcxInitiator::UcxInitiator(UcxDomain& domain, std::size_t completionDepth)
        : _domain{domain}
        , _depth{completionDepth != 0 ? completionDepth : defaultDepth}
    {
    }

    UcxInitiator::~UcxInitiator()
    {
        // The connections are closed by now, which cancelled what they had under way: its callbacks come within a few
        // progress steps.
        auto const heldByUcx = [](UcxWrite const& write) {
            return write.step == UcxWrite::Step::Sending || write.step == UcxWrite::Step::Flushing ||
                   write.step == UcxWrite::Step::Announcing;
        };
        auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds{2};
        while (std::any_of(_inFlight.begin(), _inFlight.end(), heldByUcx))
        {
            if (std::chrono::steady_clock::now() >= deadline)
            {
                log::warn("ucx initiator: {} writes still under way 2 s after its close; their memory is kept for UCX's callbacks",
                          std::count_if(_inFlight.begin(), _inFlight.end(), heldByUcx));
                keepForLateCallbacks(std::move(_inFlight));
                return;
            }
            ucp_worker_progress(_domain.worker());
        }
    }

    UcxWrite& UcxInitiator::add(UcxConnection& connection, std::uint64_t context, mxlFabricsBackendWrite const& write)
    {
        if (_spare.empty())
        {
            _inFlight.emplace_back();
        }
        else
        {
            _inFlight.splice(_inFlight.end(), _spare, _spare.begin());
            _inFlight.back() = UcxWrite{};
        }
        auto& added = _inFlight.back();
        added.context = context;
        added.targetId = connection.targetId();
        added.connection = &connection;
        added.announces = (write.flags & MXL_FABRICS_BACKEND_WRITE_IMMEDIATE) != 0;
        added.immediate = write.immediate;
        return added;
    }

    void UcxInitiator::forget(UcxConnection const& connection) noexcept
    {
        for (auto& write : _inFlight)
        {
            if (write.connection != &connection)
            {
                continue;
            }
            write.connection = nullptr;
            if (write.step == UcxWrite::Step::Flushed)
            {
                write.step = UcxWrite::Step::Done;
            }
        }
    }

    void UcxInitiator::advance()
    {
        // Connections with a write still flushing: the immediates of their later writes wait, to keep their order.
        _waiting.clear();
        for (auto write = _inFlight.begin(); write != _inFlight.end();)
        {
            auto const blocked = std::find(_waiting.begin(), _waiting.end(), write->connection) != _waiting.end();
            if (write->step == UcxWrite::Step::Flushed && !blocked)
            {
                if (write->status == UCS_OK && write->announces && write->connection != nullptr)
                {
                    write->connection->announce(*write);
                }
                else
                {
                    write->step = UcxWrite::Step::Done;
                }
            }
            if (write->step == UcxWrite::Step::Flushing || write->step == UcxWrite::Step::Flushed)
            {
                _waiting.push_back(write->connection);
            }
            if (write->step != UcxWrite::Step::Done)
            {
                ++write;
                continue;
            }
            if (!write->refused)
            {
                finish(*write);
            }
            // Done: no UCX request refers to it any more.
            auto const next = std::next(write);
            _spare.splice(_spare.end(), _inFlight, write);
            write = next;
        }
    }

    void UcxInitiator::finish(UcxWrite const& write)
    {
        if (write.status == UCS_OK && write.announces == write.announced)
        {
            _finished.push_back({write.context, MXL_STATUS_OK, {}});
            return;
        }
        if (write.connection != nullptr && write.connection->ended())
        {
            _finished.push_back({write.context, MXL_ERR_INTERRUPTED, *write.connection->ended()});
            return;
        }
        if (write.status == UCS_OK || write.status == UCS_ERR_CANCELED)
        {
            _finished.push_back(
                {write.context, MXL_ERR_INTERRUPTED,
                 fmt::format("the write to target {} did not complete: the connection was closed, or the target was closing",
                             write.targetId)});
            return;
        }
        _finished.push_back({write.context, statusOf(write.status),
                             fmt::format("a write to target {} failed: {}", write.targetId, ucs_status_string(write.status))});
    }

    std::optional<mxlFabricsBackendCompletion> UcxInitiator::pollCompletion()
    {
        if (_nextFinished == _finished.size())
        {
            _finished.clear();
            _nextFinished = 0;
            ucp_worker_progress(_domain.worker());
            advance();
        }
        if (_nextFinished == _finished.size())
        {
            return std::nullopt;
        }
        _handedOut = std::move(_finished[_nextFinished++]);
        return mxlFabricsBackendCompletion{_handedOut.context, _handedOut.status,
                                           _handedOut.status == MXL_STATUS_OK ? nullptr : _handedOut.reason.c_str()};
    }

    void UcxInitiator::connectionFailed(std::uint64_t context, std::string reason)
    {
        _failures.push_back({context, std::move(reason)});
    }

    std::optional<mxlFabricsBackendEvent> UcxInitiator::pollEvent()
    {
        if (_failures.empty())
        {
            return std::nullopt;
        }
        _failureHandedOut = std::move(_failures.front());
        _failures.pop_front();
        return mxlFabricsBackendEvent{_failureHandedOut.context, MXL_FABRICS_BACKEND_FAILED, _failureHandedOut.reason.c_str()};
    }
}
