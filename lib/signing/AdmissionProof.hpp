// The proof that an initiator holds the ticket key, carried as the private data of its connection request, so that a
// target can turn away initiators that only reached its address (docs/operations.md, "Security"):
//
//   "MXLA", version 1, the key id's length (1 byte) and bytes, HMAC-SHA256(secret, "mxl-admission/1" || target id ||
//   epoch), the two numbers 8 bytes little-endian each.
//
// It names the target's incarnation, so it is worth nothing at another target or after a restart. It is not a
// challenge: whoever sees the request on the wire can replay it to the same target until its epoch changes.
#pragma once

#include "SigningKeys.hpp"

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace mxl::signing
{
    [[nodiscard]] std::vector<std::uint8_t> admissionProof(SigningKey const& key, std::uint64_t targetId, std::uint64_t epoch);

    // Empty when `data` proves a key of `keys` ("previous" until its accepted_until) for (targetId, epoch); else why not,
    // for the log. Bytes after the proof (a provider's padding) are ignored.
    [[nodiscard]] std::string admissionProblem(SigningKeys const& keys, std::span<std::uint8_t const> data, std::uint64_t targetId,
                                               std::uint64_t epoch, std::chrono::system_clock::time_point now);
}
