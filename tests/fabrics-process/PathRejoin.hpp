// What the redundant-path process tests (grains here, audio in tests/fabrics-source) wait on: a redundant demo
// target's per-path report, and a restored path delivering steadily again before the other path is cut.
#pragma once

#include "DemoProcess.hpp"
#include "NetworkNamespaces.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

namespace mxl::test
{
    // Two network namespaces joined by two links for a test that cuts one path and then the other, or null with the
    // reason in `whyNot`: no namespaces here, or the UCX backend, under which an initiator whose tcp link to one target
    // is cut stops completing the other target's writes as well (not hitless there yet).
    std::unique_ptr<NetworkNamespaces> twoLinksToCut(std::string& whyNot);

    // The target's latest "paths:" report, which must name two paths.
    PathReport requirePathReport(DemoProcess& target);

    // Runs `checkFor(period)` while a restored path reconnects, until the path delivers (first or late) most of what the
    // source wrote at `unitsPerSecond` (grains or samples, the units of the report) in two successive periods, and
    // returns the last report. The initiator retries with back-off, and its first connection after the link came back
    // can stall once more (the target still tears down the connection that the cut left behind): cutting the other path
    // before this one is steady would leave no path, which is no test of redundancy. Fails after 60 s.
    PathReport waitForRejoin(std::size_t path, PathReport const& cut, DemoProcess& target, double unitsPerSecond,
                             std::function<void(std::chrono::seconds)> const& checkFor);

    // Stops `initiator` (the `role` it played) and then the redundant `target`, each cleanly. The target's lost (the
    // indices its real flow's head passed over because no path had them) are at most `excused`, and it left only the real
    // flow's files in `targetDomain`: the path flows' private directories are gone.
    void stopRedundantEnds(DemoProcess& initiator, std::string const& role, DemoProcess& target, std::filesystem::path const& targetDomain,
                           std::uint64_t excused);
}
