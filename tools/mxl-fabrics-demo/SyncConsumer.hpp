// The local consumer of a source's flows at the target: a flow synchronization group over a reader of every flow,
// waited on for each grain of the first discrete flow (the clock). When the group returns, every flow has data for the
// grain's time; the consumer reads the grain, each other flow at that time, and how far each audio flow's newest
// sample is from the grain's time, and prints one "sync:" line per grain.
#pragma once

#include <client/MxlHandles.hpp>

#include <mxl/flow.h>
#include <mxl/mxl.h>

#include <string>
#include <vector>

namespace mxl::demo
{
    class SyncConsumer
    {
    public:
        // Opens readers of `flowIds` in `domain` and the group over them; throws ToolError.
        SyncConsumer(std::string const& domain, std::vector<std::string> const& flowIds);

        // Until SIGINT/SIGTERM.
        void run();

    private:
        struct Member
        {
            std::string id;
            client::FlowReader reader;
            mxlFlowConfigInfo config{};
        };

        // Released in reverse: the group, the readers, the instance.
        client::Instance _instance;
        std::vector<Member> _members;
        client::FlowSynchronizationGroup _group;
        std::size_t _clock = 0;

        // Whether every flow can be read at `timestampNs`: the clock's grain `index`, the others at their own index.
        [[nodiscard]] bool readableAt(std::uint64_t index, std::uint64_t timestampNs) const;
    };
}
