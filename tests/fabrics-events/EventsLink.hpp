// A source and a target flow in their own domains, a target whose events are started before an initiator connects to
// it (so that tcp's connection is an event too), and every event its handlers saw: the fixture of the event tests.
// The test's thread drives the initiator and dispatches; the library thread reads the target.
#pragma once

#include "FabricsHarness.hpp"
#include "Link.hpp"

#include <mxl/fabrics_events.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace mxl::test::fabrics
{
    // One dispatched event and the dispatch call that ran it, counted from 1.
    struct Seen
    {
        mxlFabricsEvent event;
        std::size_t call;
    };

    struct EventsLink : LinkEnds
    {
        EventsLink(Transport const& transport, std::string const& flowFile, std::size_t queueCapacity = 0,
                   std::optional<std::uint64_t> historyNs = std::nullopt);

        EventsLink(EventsLink const&) = delete;
        EventsLink& operator=(EventsLink const&) = delete;

        int fd = -1;
        std::vector<Seen> seen;
        std::size_t dispatchCalls = 0;
        mxlStatus lastProgress = MXL_ERR_NOT_READY;

        // The handler the link sets for every library type: appends to `seen` (`userData` is the link).
        static void record(mxlFabricsTarget target, mxlFabricsEvent const* event, void* userData);

        // One DispatchEvents call, waiting up to `timeout` for the first event; how many it ran (REQUIREs OK or NOT_READY).
        std::size_t dispatch(std::chrono::milliseconds timeout);

        // Drives the initiator and dispatches whenever the descriptor polls readable, until `done`; false after `timeout`.
        bool driveUntil(std::function<bool()> const& done, std::chrono::milliseconds timeout = std::chrono::seconds{10});

        // Transfers [start, end) of grain `index` and drives until its event came and the initiator reports OK.
        void transferGrain(std::uint64_t index, std::uint16_t start, std::uint16_t end);

        [[nodiscard]] std::vector<mxlFabricsEvent> seenOf(std::uint32_t type) const;
        [[nodiscard]] bool sawGrain(std::uint64_t index, std::uint16_t validSlices) const;
        [[nodiscard]] mxlFabricsEventCounters counters() const;
        [[nodiscard]] std::uint16_t totalSlices() const;
    };

    // Whether the descriptor polls readable within `timeout`.
    [[nodiscard]] bool pollReadable(int fd, std::chrono::milliseconds timeout);

    // Sends grains of the link's source from a thread of its own, each transfer completed before the next, while the
    // test's thread waits on the target's descriptor: the given indices (the test wrote their grains), or a stream of
    // grains it writes itself from `first` on until finish(). Outcomes are kept for the test's thread to check:
    // assertions there, not here.
    class Sender
    {
    public:
        Sender(EventsLink& link, std::vector<std::uint64_t> indices);
        Sender(EventsLink& link, std::uint64_t first, std::uint32_t seed);
        ~Sender();

        Sender(Sender const&) = delete;
        Sender& operator=(Sender const&) = delete;

        // Ends a stream after the transfer under way, which completes only while the target is read: dispatch until
        // done(), then finish().
        void stop() noexcept;

        [[nodiscard]] bool done() const noexcept
        {
            return _done;
        }

        // Ends a stream, waits for the thread; the transfers that failed or never completed.
        unsigned finish();

        // Once finished: what was sent, in order, and (a stream) the checksum of each grain it wrote.
        [[nodiscard]] std::vector<std::uint64_t> const& sent() const noexcept
        {
            return _sent;
        }

        [[nodiscard]] std::vector<std::uint64_t> const& checksums() const noexcept
        {
            return _checksums;
        }

    private:
        mxlFabricsInitiator _initiator;
        std::uint16_t _slices;
        std::atomic<bool> _stop{false};
        std::atomic<bool> _done{false};
        std::atomic<unsigned> _failures{0};
        std::vector<std::uint64_t> _sent;
        std::vector<std::uint64_t> _checksums;
        std::thread _thread;

        // False when the transfer was refused.
        bool send(std::uint64_t index);
    };
}
