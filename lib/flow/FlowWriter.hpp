// What discrete and continuous writers share: the share-locked read-write mapping and the publication of a new head.
#pragma once

#include "Domain.hpp"
#include "FlowFiles.hpp"

#include "common/FlowMemory.hpp"

#include <mxl/flow.h>

#include <filesystem>
#include <string>

namespace mxl
{
    class FlowWriter : public mxlFlowWriter_t
    {
    public:
        FlowWriter(std::string canonicalId, std::filesystem::path flowDirectory, FlowFiles files);

        [[nodiscard]] std::string const& id() const noexcept
        {
            return _id;
        }

        [[nodiscard]] std::filesystem::path const& flowDirectory() const noexcept
        {
            return _flowDirectory;
        }

        [[nodiscard]] mxlFlowConfigInfo const& config() const noexcept
        {
            return _files.data().info.config;
        }

        [[nodiscard]] bool isDiscrete() const noexcept
        {
            return _files.isDiscrete();
        }

        [[nodiscard]] layout::FlowData& data() const noexcept
        {
            return _files.data();
        }

        // Deletes the flow directory when no other writer (in any process) holds the flow; called once, by the last
        // holder of this handle. Returns whether the flow was deleted.
        bool deleteFlowIfLastWriter() noexcept;

        // A device flow's payload ring; nullptr for a host flow.
        [[nodiscard]] device::DeviceRing const* deviceRing() const noexcept
        {
            return _files.deviceRing();
        }

    protected:
        [[nodiscard]] FlowFiles const& files() const noexcept
        {
            return _files;
        }

        // Moves the head to `index` unless it is already further (writers of one flow may race), and stamps the write.
        void advanceHead(std::uint64_t index) noexcept;

        // Bumps the sync counter and wakes every reader blocked on it, in every process.
        void wakeReaders() noexcept;

    private:
        std::string _id;
        std::filesystem::path _flowDirectory;
        FlowFiles _files;
    };
}
