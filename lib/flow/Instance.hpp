// One media function's view of a domain: its writers and readers (ref-counted per flow id), its synchronization
// groups and the watcher that turns reads into lastReadTime.
#pragma once

#include "Domain.hpp"
#include "DomainWatcher.hpp"
#include "FlowReader.hpp"
#include "FlowSynchronizationGroup.hpp"
#include "FlowWriter.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace mxl
{
    class Instance
    {
    public:
        // `domain` must be an existing directory; `options` is NULL or a JSON object (reserved; invalid JSON is logged).
        Instance(char const* domain, char const* options);

        // Releases what the caller leaked, deleting the flows this process was the last writer of.
        ~Instance();

        Instance(Instance const&) = delete;
        Instance& operator=(Instance const&) = delete;

        [[nodiscard]] Domain const& domain() const noexcept
        {
            return _domain;
        }

        [[nodiscard]] std::uint64_t historyDurationNs() const noexcept
        {
            return _historyDurationNs;
        }

        struct CreatedWriter
        {
            FlowWriter* writer;
            bool created;
        };

        CreatedWriter createWriter(char const* flowDefinition, char const* options);

        // Unknown handles are ignored, so releasing twice is harmless.
        void releaseWriter(mxlFlowWriter_t* writer);

        FlowReader& createReader(char const* flowId);

        void releaseReader(mxlFlowReader_t* reader);

        mxlFlowSynchronizationGroup_t& createSynchronizationGroup();

        void releaseSynchronizationGroup(FlowSynchronizationGroup* group);

        [[nodiscard]] DomainWatcher const& watcher() const noexcept
        {
            return _watcher;
        }

    private:
        template <typename T>
        struct Held
        {
            std::unique_ptr<T> object;
            std::size_t references;
        };

        void destroyWriter(FlowWriter& writer) noexcept;

        Domain _domain;
        std::uint64_t _historyDurationNs;
        DomainWatcher _watcher;
        std::mutex _mutex;
        std::map<std::string, Held<FlowWriter>> _writers;
        std::map<std::string, Held<FlowReader>> _readers;
        std::vector<std::unique_ptr<mxlFlowSynchronizationGroup_t>> _groups;
    };

    // A flow id from the C API in the canonical form of directory names; INVALID_ARG when it is not a UUID.
    std::string canonicalFlowId(char const* flowId);
}

struct mxlInstance_t final : mxl::Instance
{
    using Instance::Instance;
};
