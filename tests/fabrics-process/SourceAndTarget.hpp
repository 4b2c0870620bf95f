// The start of most process tests: a source flow written in a domain of its own, and an mxl-fabrics-demo target that
// receives the same flow into another domain and has printed its ticket.
#pragma once

#include "PatternSource.hpp"
#include "Scenario.hpp"
#include "TempDomain.hpp"
#include "TestFlows.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace mxl::test
{
    struct SourceAndTarget
    {
        // `flow` is a definition of tests/fabrics-process/data; `targetArguments` follow the target's -d and -f, and
        // `launcher` runs the target (e.g. in a network namespace).
        SourceAndTarget(char const* flow, std::vector<std::string> const& targetArguments, std::uint16_t slicesPerCommit = 0,
                        std::vector<std::string> const& launcher = {})
            : source{sourceDomain.str(), testFlow(flow), slicesPerCommit}
            , target{startTarget(targetDomain.str(), testFlow(flow).string(), targetArguments, launcher)}
        {
        }

        TempDomain sourceDomain{"fp-source"};
        TempDomain targetDomain{"fp-target"};
        PatternSource source;
        RunningTarget target;
    };
}
