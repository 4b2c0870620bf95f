// The receiving end of a moved flow, seen from the test: GrainVerifier reads the target's copy of the flow that a
// PatternSource (PatternSource.hpp) writes, and compares each complete grain's FNV-1a checksum with the one the pattern
// (GrainPattern.hpp) gives for that index.
#pragma once

#include "PatternSource.hpp"

#include <client/MxlHandles.hpp>

#include <mxl/flow.h>
#include <mxl/mxl.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

namespace mxl::test
{
    struct Verification
    {
        std::uint64_t verified = 0;
        std::uint64_t mismatched = 0;
        // The newest verified index.
        std::uint64_t lastIndex = 0;
        // Indices not there complete while a later one was the head.
        std::uint64_t missing = 0;
        // Indices not looked at: jumped over when the check fell more than 8 grains behind (the checker's own overrun).
        std::uint64_t overrun = 0;
    };

    class GrainVerifier
    {
    public:
        // Waits up to 5 s for the flow to exist in `domain`; throws std::runtime_error.
        GrainVerifier(std::filesystem::path const& domain, std::string const& flowId);

        // Checks grains as they arrive, from the head onwards, until `wanted` are verified or `timeout` passes.
        // Successive calls continue after the last grain looked at.
        Verification check(std::uint64_t wanted, std::chrono::milliseconds timeout);

    private:
        client::Instance _instance;
        client::FlowReader _reader;
        std::uint64_t _next = 0;
    };

    // Requires `grains` more grains verified within `timeout` and none mismatched; `context`, called only on a failure,
    // says what was going on.
    void requireFlowing(GrainVerifier& verifier, std::uint64_t grains, std::chrono::milliseconds timeout,
                        std::function<std::string()> const& context);

    // The same within 10 s; `when` names the moment in a failure.
    void requireFlowing(GrainVerifier& verifier, std::uint64_t grains, std::string const& when);
}
