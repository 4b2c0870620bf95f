#include "EventsLink.hpp"

#include <doctest/doctest.h>

#include <poll.h>

#include <algorithm>

using namespace std::chrono_literals;

namespace mxl::test::fabrics
{
    EventsLink::EventsLink(Transport const& transport, std::string const& flowFile, std::size_t queueCapacity,
                           std::optional<std::uint64_t> historyNs)
        : LinkEnds{transport, flowFile, "events", historyNs, historyNs}
    {
        REQUIRE(target.setupStatus == MXL_STATUS_OK);
        for (std::uint32_t type = MXL_FABRICS_EVENT_GRAIN_ARRIVED; type <= MXL_FABRICS_EVENT_TARGET_FAILED; ++type)
        {
            REQUIRE(mxlFabricsTargetSetEventHandler(target.target, type, &EventsLink::record, this) == MXL_STATUS_OK);
        }
        REQUIRE(mxlFabricsTargetStartEvents(target.target, queueCapacity, &fd) == MXL_STATUS_OK);
        REQUIRE(fd >= 0);
        REQUIRE(mxlFabricsInitiatorAddTarget(initiator.initiator, target.ticket) == MXL_STATUS_OK);
        REQUIRE(driveUntil([&] { return lastProgress == MXL_STATUS_OK; }));
        CHECK(initiator.state(target) == MXL_FABRICS_TARGET_CONNECTED);
    }

    void EventsLink::record(mxlFabricsTarget, mxlFabricsEvent const* event, void* userData)
    {
        auto& link = *static_cast<EventsLink*>(userData);
        link.seen.push_back({*event, link.dispatchCalls});
    }

    std::size_t EventsLink::dispatch(std::chrono::milliseconds timeout)
    {
        ++dispatchCalls;
        std::size_t dispatched = 0;
        auto const status = mxlFabricsTargetDispatchEvents(target.target, static_cast<std::uint16_t>(timeout.count()), &dispatched);
        REQUIRE((status == MXL_STATUS_OK || status == MXL_ERR_NOT_READY));
        CHECK((status == MXL_STATUS_OK) == (dispatched > 0));
        return dispatched;
    }

    bool EventsLink::driveUntil(std::function<bool()> const& done, std::chrono::milliseconds timeout)
    {
        auto const deadline = std::chrono::steady_clock::now() + timeout;
        while (!done())
        {
            if (std::chrono::steady_clock::now() >= deadline)
            {
                return false;
            }
            lastProgress = mxlFabricsInitiatorMakeProgressNonBlocking(initiator.initiator);
            if (pollReadable(fd, 1ms))
            {
                static_cast<void>(dispatch(0ms));
            }
        }
        return true;
    }

    void EventsLink::transferGrain(std::uint64_t index, std::uint16_t start, std::uint16_t end)
    {
        REQUIRE(mxlFabricsInitiatorTransferGrain(initiator.initiator, index, start, end) == MXL_STATUS_OK);
        lastProgress = MXL_ERR_NOT_READY;
        REQUIRE(driveUntil([&] { return sawGrain(index, end) && lastProgress == MXL_STATUS_OK; }));
    }

    std::vector<mxlFabricsEvent> EventsLink::seenOf(std::uint32_t type) const
    {
        std::vector<mxlFabricsEvent> result;
        for (auto const& entry : seen)
        {
            if (entry.event.type == type)
            {
                result.push_back(entry.event);
            }
        }
        return result;
    }

    bool EventsLink::sawGrain(std::uint64_t index, std::uint16_t validSlices) const
    {
        return std::any_of(seen.begin(), seen.end(),
                           [&](Seen const& entry)
                           {
                               return entry.event.type == MXL_FABRICS_EVENT_GRAIN_ARRIVED && entry.event.grain.index == index &&
                                      entry.event.grain.validSlices == validSlices;
                           });
    }

    mxlFabricsEventCounters EventsLink::counters() const
    {
        mxlFabricsEventCounters result{};
        result.structSize = sizeof(result);
        REQUIRE(mxlFabricsTargetGetEventCounters(target.target, &result) == MXL_STATUS_OK);
        return result;
    }

    std::uint16_t EventsLink::totalSlices() const
    {
        mxlGrainInfo info;
        REQUIRE(mxlFlowWriterGetGrainInfo(source.writer, 0, &info) == MXL_STATUS_OK);
        return info.totalSlices;
    }

    Sender::Sender(EventsLink& link, std::vector<std::uint64_t> indices)
        : _initiator{link.initiator.initiator}
        , _slices{link.totalSlices()}
        , _thread{[this, indices = std::move(indices)]
                  {
                      for (auto const index : indices)
                      {
                          if (!send(index))
                          {
                              break;
                          }
                      }
                      _done = true;
                  }}
    {
    }

    Sender::Sender(EventsLink& link, std::uint64_t first, std::uint32_t seed)
        : _initiator{link.initiator.initiator}
        , _slices{link.totalSlices()}
        , _thread{[this, &source = link.source, first, seed]
                  {
                      for (auto index = first; !_stop; ++index)
                      {
                          _checksums.push_back(writeGrain(source, index, seed));
                          if (!send(index))
                          {
                              break;
                          }
                      }
                      _done = true;
                  }}
    {
    }

    Sender::~Sender()
    {
        if (_thread.joinable())
        {
            static_cast<void>(finish());
        }
    }

    void Sender::stop() noexcept
    {
        _stop = true;
    }

    unsigned Sender::finish()
    {
        stop();
        _thread.join();
        return _failures.load();
    }

    bool Sender::send(std::uint64_t index)
    {
        if (mxlFabricsInitiatorTransferGrain(_initiator, index, 0, _slices) != MXL_STATUS_OK)
        {
            ++_failures;
            return false;
        }
        auto const deadline = std::chrono::steady_clock::now() + 20s;
        auto status = MXL_ERR_NOT_READY;
        while (status == MXL_ERR_NOT_READY && std::chrono::steady_clock::now() < deadline)
        {
            status = mxlFabricsInitiatorMakeProgressBlocking(_initiator, 10);
        }
        _failures += status == MXL_STATUS_OK ? 0U : 1U;
        _sent.push_back(index);
        return true;
    }

    bool pollReadable(int fd, std::chrono::milliseconds timeout)
    {
        pollfd entry{fd, POLLIN, 0};
        return ::poll(&entry, 1, static_cast<int>(timeout.count())) == 1 && (entry.revents & POLLIN) != 0;
    }
}
