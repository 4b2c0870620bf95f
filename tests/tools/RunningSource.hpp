// An mxl-test-source process for the duration of a test, with the flows it announced, and a reader's view of them
// through the public API.
#pragma once

#include "Process.hpp"

#include <mxl/flow.h>
#include <mxl/mxl.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace mxl::test
{
    class RunningSource
    {
    public:
        // Starts mxl-test-source with `arguments` (after -d domain) and waits for `flowCount` "flow <uuid> <type>" lines.
        RunningSource(std::filesystem::path const& domain, std::vector<std::string> const& arguments, std::size_t flowCount);

        // Flow id by media type ("video/v210", "audio/float32", ...).
        [[nodiscard]] std::string const& flowId(std::string const& mediaType) const;

        // Requires the source's next "stats" line within `timeout`: by then it has written grains, and its flows' heads are
        // set.
        void requireStats(std::chrono::milliseconds timeout);

        Process& process() noexcept
        {
            return _process;
        }

    private:
        Process _process;
        std::map<std::string, std::string> _flowIds;
    };

    // An instance and a reader on one flow, released at the end of the test.
    class FlowReaderFixture
    {
    public:
        FlowReaderFixture(std::filesystem::path const& domain, std::string const& flowId);
        ~FlowReaderFixture();

        FlowReaderFixture(FlowReaderFixture const&) = delete;
        FlowReaderFixture& operator=(FlowReaderFixture const&) = delete;

        mxlInstance instance = nullptr;
        mxlFlowReader reader = nullptr;

        [[nodiscard]] mxlFlowInfo info() const;
    };
}
