// A reader in the test process on the flow a target receives into: follows the grains as they arrive, every one in
// order, and compares each one's checksum with what the PatternSource wrote under that index, or with the pattern
// (GrainPattern.hpp) itself.
#pragma once

#include "PatternSource.hpp"

#include <client/MxlHandles.hpp>

#include <mxl/flow.h>
#include <mxl/mxl.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mxl::test
{
    struct CheckResult
    {
        // Checksum equal to the source's grain of the same index.
        std::uint64_t verified = 0;
        std::uint64_t mismatched = 0;
        // Complete grains with an index the source never wrote.
        std::uint64_t unknown = 0;
        // Indices that never arrived: a later grain is in the ring where this one should be.
        std::uint64_t missing = 0;
        // Indices not looked at because the ring moved on before the checker got there (the checker was slow, not the
        // transport: they may well have arrived).
        std::uint64_t overrun = 0;
        // Grains first seen with only some of their slices (partial transfers).
        std::uint64_t partial = 0;
        // Grains the target holds flagged MXL_GRAIN_FLAG_INVALID with no valid slices: the initiator announced them lost
        // because the source overwrote them before the target read them (docs/fabrics.md, "Read safety").
        std::uint64_t invalidated = 0;
        // The first mismatch or unknown grain, for the failure message.
        std::string firstProblem;
        // The first missing grain: the head then, what its slot held, and what it held a moment later.
        std::string firstMissing;

        // Adds a later check's counts; the first problem stays the earliest one.
        CheckResult& operator+=(CheckResult const& later);
    };

    class FlowChecker
    {
    public:
        // Opens the flow (waiting up to 5 s for the target to create it); throws std::runtime_error.
        FlowChecker(std::string const& domain, std::string const& flowId);

        FlowChecker(FlowChecker const&) = delete;
        FlowChecker& operator=(FlowChecker const&) = delete;

        // Checks arriving grains until `grains` are verified or `timeout` passes. Successive calls continue where the
        // previous one stopped (or at the newest grain, if that is gone). `watchPartials` also counts grains seen
        // before all their slices arrived.
        CheckResult check(PatternSource const& source, std::uint64_t grains, std::chrono::milliseconds timeout, bool watchPartials = false);

        // The same against the pattern alone, where no PatternSource is at hand: a grain of an index no source wrote
        // cannot be told from a corrupt one, so it counts mismatched.
        CheckResult check(std::uint64_t grains, std::chrono::milliseconds timeout, bool watchPartials = false);

        // The flow's head index (0 until a grain arrived).
        [[nodiscard]] std::uint64_t headIndex() const;

        // A grain behind the head that is not there yet is waited for up to `wait` before it counts missing: a redundant
        // target commits in arrival order, so the path that joins ahead of the other moves the head past grains the other
        // path commits a moment later (docs/fabrics-demo.md, "Redundant paths"). 0, the default: not waited for.
        void waitForLateCommits(std::chrono::milliseconds wait) noexcept
        {
            _lateCommitWait = wait;
        }

        // The next check starts at the newest grain: after a planned gap (a new initiator) that is not a loss.
        void restartAtHead() noexcept
        {
            _next = 0;
        }

        // Like restartAtHead, once a grain newer than `oldHead` arrived: a peer that died mid-transfer can leave its next
        // slot holding the in-flight mark (an invalid grain just past `oldHead`), which is the dead session's loss, not the
        // new one's. False when no newer grain came within `timeout`.
        [[nodiscard]] bool restartPast(std::uint64_t oldHead, std::chrono::milliseconds timeout);

    private:
        // `source` null: the pattern's checksums are expected.
        CheckResult checkGrains(PatternSource const* source, std::uint64_t grains, std::chrono::milliseconds timeout, bool watchPartials);
        // What the slot of grain `_next`, found missing with the head at `head`, holds now and 50 ms later.
        [[nodiscard]] std::string describeMissing(std::uint64_t head) const;
        // Whether the slot of grain `_next` no longer holds what `read` said (it is being, or was, written again).
        [[nodiscard]] bool slotMovedOn(mxlGrainInfo const& read) const;
        // The payload's checksum, copied to host memory first where the flow's payloads are on a device.
        [[nodiscard]] std::uint64_t checksumOf(std::uint8_t const* payload, std::size_t bytes);

        client::Instance _instance;
        client::FlowReader _reader;
        std::uint64_t _next = 0;
        std::chrono::milliseconds _lateCommitWait{0};
        // When the checker first found a grain behind the head missing, in the gap it is working through.
        std::optional<std::chrono::steady_clock::time_point> _gapSeenAt;
        bool _onDevice = false;
        std::vector<std::uint8_t> _hostCopy;
    };
}
