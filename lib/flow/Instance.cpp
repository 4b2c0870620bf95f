#include "Instance.hpp"

#include "ContinuousFlowReader.hpp"
#include "ContinuousFlowWriter.hpp"
#include "DiscreteFlowReader.hpp"
#include "DiscreteFlowWriter.hpp"
#include "FlowDefinition.hpp"

#include "common/Status.hpp"

#include <mxl/dataformat.h>

#include <nlohmann/json.hpp>

#include <algorithm>

namespace mxl
{
    namespace
    {
        std::filesystem::path requireDomainPath(char const* domain)
        {
            if (domain == nullptr)
            {
                fail(MXL_ERR_INVALID_ARG, "the domain path is NULL, expected an existing directory");
            }
            return domain;
        }

        void checkInstanceOptions(char const* options) noexcept
        {
            if (options == nullptr || *options == '\0')
            {
                return;
            }
            if (!nlohmann::json::accept(options))
            {
                log::error("instance options are not valid JSON and are ignored: {}", options);
            }
        }

        template <typename Map, typename Handle>
        auto findByHandle(Map& map, Handle const* handle)
        {
            return std::find_if(map.begin(), map.end(), [&](auto const& entry) { return entry.second.object.get() == handle; });
        }
    }

    std::string canonicalFlowId(char const* flowId)
    {
        if (flowId == nullptr)
        {
            fail(MXL_ERR_INVALID_ARG, "the flow id is NULL, expected a UUID");
        }
        auto id = canonicalUuid(flowId);
        if (!id)
        {
            fail(MXL_ERR_INVALID_ARG, "flow id '{}' is not a UUID, expected 32 hex digits such as 5fbec3b1-1b0f-417d-9059-8b94a47197ed",
                 flowId);
        }
        return std::move(*id);
    }

    Instance::Instance(char const* domain, char const* options)
        : _domain{requireDomainPath(domain)}
        , _historyDurationNs{readHistoryDurationNs(_domain.path().string())}
        , _watcher{_domain.path()}
    {
        checkInstanceOptions(options);
    }

    Instance::~Instance()
    {
        _watcher.stop();
        std::lock_guard lock{_mutex};
        _groups.clear();
        _readers.clear();
        for (auto& [id, held] : _writers)
        {
            log::debug("instance destroyed while holding writer of flow {}", id);
            destroyWriter(*held.object);
        }
        _writers.clear();
    }

    Instance::CreatedWriter Instance::createWriter(char const* flowDefinition, char const* options)
    {
        if (flowDefinition == nullptr)
        {
            fail(MXL_ERR_INVALID_ARG, "the flow definition is NULL, expected NMOS flow JSON");
        }
        auto const definition = parseFlowDefinition(flowDefinition);
        auto const flowOptions = parseFlowOptions(options);
        std::lock_guard lock{_mutex};
        if (auto const found = _writers.find(definition.idString); found != _writers.end())
        {
            if (found->second.object->isDiscrete() != (mxlIsDiscreteDataFormat(definition.format) != 0))
            {
                fail(MXL_ERR_UNKNOWN, "flow {} is already written by this instance as a flow of the other kind (format {})",
                     definition.idString, found->second.object->config().common.format);
            }
            ++found->second.references;
            return {found->second.object.get(), false};
        }
        auto const config = makeFlowConfig(definition, flowOptions, _historyDurationNs);
        auto [files, created] = _domain.createOrOpenFlow(definition, flowDefinition, config);
        auto const directory = _domain.flowDirectory(definition.idString);
        std::unique_ptr<FlowWriter> writer;
        if (files.isDiscrete())
        {
            writer = std::make_unique<DiscreteFlowWriter>(definition.idString, directory, std::move(files));
            _watcher.addWriter(writer.get(), directory, writer->data());
        }
        else
        {
            writer = std::make_unique<ContinuousFlowWriter>(definition.idString, directory, std::move(files));
        }
        auto* const handle = writer.get();
        _writers.emplace(definition.idString, Held<FlowWriter>{std::move(writer), 1});
        return {handle, created};
    }

    void Instance::releaseWriter(mxlFlowWriter_t* writer)
    {
        std::lock_guard lock{_mutex};
        auto const found = findByHandle(_writers, writer);
        if (found == _writers.end() || --found->second.references > 0)
        {
            return;
        }
        destroyWriter(*found->second.object);
        _writers.erase(found);
    }

    void Instance::destroyWriter(FlowWriter& writer) noexcept
    {
        _watcher.removeWriter(&writer);
        if (writer.deleteFlowIfLastWriter())
        {
            log::debug("deleted flow {}: its last writer was released", writer.id());
        }
    }

    FlowReader& Instance::createReader(char const* flowId)
    {
        auto id = canonicalFlowId(flowId);
        std::lock_guard lock{_mutex};
        if (auto const found = _readers.find(id); found != _readers.end())
        {
            ++found->second.references;
            return *found->second.object;
        }
        auto files = _domain.openFlow(id, MappedFile::Access::ReadOnly);
        std::unique_ptr<FlowReader> reader;
        if (files.isDiscrete())
        {
            reader = std::make_unique<DiscreteFlowReader>(_domain, id, std::move(files));
        }
        else
        {
            reader = std::make_unique<ContinuousFlowReader>(_domain, id, std::move(files));
        }
        auto& result = *reader;
        _readers.emplace(std::move(id), Held<FlowReader>{std::move(reader), 1});
        return result;
    }

    void Instance::releaseReader(mxlFlowReader_t* reader)
    {
        std::lock_guard lock{_mutex};
        auto const found = findByHandle(_readers, reader);
        if (found == _readers.end() || --found->second.references > 0)
        {
            return;
        }
        for (auto const& group : _groups)
        {
            group->removeReader(found->second.object.get());
        }
        _readers.erase(found);
    }

    mxlFlowSynchronizationGroup_t& Instance::createSynchronizationGroup()
    {
        std::lock_guard lock{_mutex};
        return *_groups.emplace_back(std::make_unique<mxlFlowSynchronizationGroup_t>());
    }

    void Instance::releaseSynchronizationGroup(FlowSynchronizationGroup* group)
    {
        std::lock_guard lock{_mutex};
        std::erase_if(_groups, [&](auto const& owned) { return owned.get() == group; });
    }
}
