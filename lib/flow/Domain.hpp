// A domain directory and the flows in it: atomic creation, opening, listing, deletion and garbage collection
// (docs/memory-layout.md; docs/flow-behaviour.md, "Files and creation" and "Activity and garbage collection").
#pragma once

#include "FlowDefinition.hpp"
#include "FlowFiles.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mxl
{
    class Domain
    {
    public:
        // `path` must name an existing directory; it is kept in canonical form.
        explicit Domain(std::filesystem::path const& path);

        [[nodiscard]] std::filesystem::path const& path() const noexcept
        {
            return _path;
        }

        [[nodiscard]] std::filesystem::path flowDirectory(std::string_view canonicalId) const;

        struct CreatedOrOpened
        {
            FlowFiles files;
            bool created;
        };

        // Publishes a new flow for `definition` with `config`, or opens the existing one read-write when the flow is
        // already there (including when another writer wins the creation race). `flowDefinitionText` is stored
        // verbatim. An existing flow of the other kind (discrete/continuous) is rejected.
        CreatedOrOpened createOrOpenFlow(FlowDefinition const& definition, std::string_view flowDefinitionText,
                                         mxlFlowConfigInfo const& config);

        FlowFiles openFlow(std::string_view canonicalId, MappedFile::Access access) const;

        // Canonical ids of every `<uuid>.mxl-flow` directory; other entries are skipped.
        [[nodiscard]] std::vector<std::string> listFlows() const;

        // False when there was nothing to delete or it could not be deleted.
        bool deleteFlow(std::string_view canonicalId) const noexcept;

        // Deletes every flow no writer holds; returns how many were removed. Best effort: errors are logged.
        std::size_t garbageCollect() const noexcept;

        // True while some process holds the flow as a writer.
        [[nodiscard]] bool isFlowActive(std::string_view canonicalId) const;

        [[nodiscard]] std::string readFlowDefinition(std::string_view canonicalId) const;

    private:
        std::optional<FlowFiles> tryPublishNewFlow(FlowDefinition const& definition, std::string_view flowDefinitionText,
                                                   mxlFlowConfigInfo const& config) const;
        std::optional<FlowFiles> tryOpenExistingFlow(std::string_view canonicalId) const;

        std::filesystem::path _path;
    };
}
