// Which incarnation of a target an initiator's connection request is meant for, carried as the request's private data
// where no proof of the ticket key is (signing/AdmissionProof.hpp names the incarnation itself):
//
//   "MXLI", version 1, the ticket's target id and epoch, 8 bytes little-endian each.
//
// A target restarted on the same address and port refuses the request of an initiator that still holds the ticket of
// the one before, so that a stale ticket fails at connection time, beside the target it holds, rather than after it
// was preferred to that target. Requests without the mark (another implementation's initiators) are let in as before.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace mxl::fabrics
{
    [[nodiscard]] std::vector<std::uint8_t> incarnationMark(std::uint64_t targetId, std::uint64_t epoch);

    // Empty when `data` is no mark, or one naming (targetId, epoch), or targetId and no epoch (0: a ticket without one);
    // else why the request is refused, for the log.
    [[nodiscard]] std::string incarnationProblem(std::span<std::uint8_t const> data, std::uint64_t targetId, std::uint64_t epoch);
}
