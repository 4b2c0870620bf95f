// A reader in the bench process on one target's flow, reading it as a local consumer of the bridged flow would: it
// waits for each grain in turn (audio: each batch of the flow's commit hint, starting at the target's newest sample so
// that its batches are the ones the initiator sent) and counts, for the units of the window, those that arrived, those
// that arrived flagged invalid, and those still missing `missingAfter` after their timestamp, with each arrival's
// latency: the time it was seen on the TAI clock minus the unit's timestamp (audio: the batch's last sample's).
#pragma once

#include "LiveWindow.hpp"

#include <client/MxlHandles.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace mxl::bench::capacity
{
    struct ReaderCounts
    {
        std::uint64_t arrived = 0;
        std::uint64_t invalid = 0;
        std::uint64_t missing = 0;
        std::vector<std::uint64_t> latenciesNs;
    };

    class TargetFlowReader
    {
    public:
        // As long as the target domain's default history (200 ms): a grain later than that is overwritten anyway.
        static constexpr std::chrono::milliseconds missingAfter{200};

        // Opens flow `flowId` in `domain` and follows it from the present in a thread of its own; `name` says which
        // reader this is in messages. Throws naming the flow and domain when it cannot be opened.
        TargetFlowReader(std::string name, std::string const& domain, std::string const& flowId, LiveWindow const& window);

        TargetFlowReader(TargetFlowReader const&) = delete;
        TargetFlowReader& operator=(TargetFlowReader const&) = delete;

        // True once the reader is past the window's end, or has failed.
        [[nodiscard]] bool finished() const noexcept
        {
            return _finished.load(std::memory_order_acquire);
        }

        // Stops the thread and returns the counts; throws what made the reader fail, or that it stopped before the
        // window's end.
        ReaderCounts finish();

    private:
        std::string _name;
        LiveWindow const& _window;
        client::Instance _instance;
        client::FlowReader _reader;
        mxlFlowConfigInfo _config{};
        ReaderCounts _counts;
        std::string _failure;
        bool _reachedEnd = false;
        std::atomic<bool> _finished{false};
        std::jthread _thread;

        void run(std::stop_token const& stop);
        void readGrains(std::stop_token const& stop);
        void readBatches(std::stop_token const& stop);
        // What one read of a unit gave: its status, whether it arrived flagged invalid, and the call and unit it read,
        // for an error ("mxlFlowReaderGetGrain of grain", followed by the index).
        struct UnitRead
        {
            mxlStatus status;
            bool invalid;
            char const* what;
        };
        // Reads the units from `index` on, `step` indices apart, with `read(index, timeoutNs)`, counting each as arrived or
        // missing, until the window ends or `stop` is requested.
        template <typename Read>
        void readUnits(std::stop_token const& stop, std::uint64_t index, std::uint64_t step, Read&& read);
        // How long the next read may wait for the unit due at `timestampNs`: until its missing deadline, at most a
        // tenth of a second (so that a stop request is seen); 0 once the deadline has passed.
        [[nodiscard]] std::uint64_t waitNs(std::uint64_t timestampNs) const;
        [[nodiscard]] bool pastDeadline(std::uint64_t timestampNs) const;
        void arrived(std::uint64_t timestampNs, bool invalid);
        void missing(std::uint64_t timestampNs);
    };
}
