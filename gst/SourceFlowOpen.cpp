#include "SourceFlowOpen.hpp"

#include "FlowDefinitionText.hpp"
#include "common/StatusName.hpp"

#include <common/FlowPaths.hpp>
#include <mxl/flow.h>

#include <gst/gst.h>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <system_error>

namespace mxl::gst
{
    namespace
    {
        // Format, caps and the config every later read needs; ElementFailure naming the flow when mxlsrc cannot carry it.
        void describe(ReadFlow& flow, DomainInstance const& domain, SourceFlowName const& name, mxlFlowConfigInfo& config)
        {
            try
            {
                flow.format = formatFromDefinition(flowDefinitionText(flow.instance, flow.id));
                checkSourceFlowFormat(name, flow.format.format);
                flow.caps = capsFromFormat(flow.format, name.property == SourceFlowProperty::dataFlowId);
            }
            catch (FormatError const& e)
            {
                throw formatFailure(fmt::format("flow {} in domain \"{}\": {}", flow.id, domain.domain(), e.what()));
            }
            catch (std::invalid_argument const& e)
            {
                throw settingsFailure(e.what());
            }
            if (auto const status = mxlFlowReaderGetConfigInfo(flow.reader.get(), &config); status != MXL_STATUS_OK)
            {
                throw flowFailure(fmt::format("mxlFlowReaderGetConfigInfo of flow {} failed: {}", flow.id, mxl::statusName(status)));
            }
        }

        void startSamples(ReadFlow& flow, SourceReading const& reading)
        {
            // Default: 10 ms of samples, a common audio packet time.
            auto const rate = static_cast<std::uint64_t>(flow.format.rate.numerator);
            std::size_t maxRead = 0;
            mxlFlowReaderGetMaxReadLengthSamples(flow.reader.get(), &maxRead);
            auto const samples =
                reading.samplesPerBuffer != 0 ? std::uint64_t{reading.samplesPerBuffer} : std::max<std::uint64_t>(1, rate / 100);
            if (samples > maxRead)
            {
                throw settingsFailure(fmt::format("samples-per-buffer {} is more than the {} samples flow {} lets a reader take at once",
                                                  samples, maxRead, flow.id));
            }
            flow.unitsPerBuffer = samples;
            flow.samples.emplace(flow.reader.get(), samples, reading.startIndex);
        }
    }

    SourceFlowName checkedSourceFlowName(SourceFlowIds const& ids)
    {
        SourceFlowName name;
        try
        {
            name = resolveSourceFlow(ids);
        }
        catch (std::invalid_argument const& e)
        {
            throw settingsFailure(e.what());
        }
        if (!g_uuid_string_is_valid(name.flowId.c_str()))
        {
            throw settingsFailure(fmt::format("{} \"{}\" is not a UUID (e.g. 5fbec3b1-1b0f-417d-9059-8b94a47197ed)",
                                              propertyName(name.property), name.flowId));
        }
        return name;
    }

    std::unique_ptr<ReadFlow> openSourceFlow(DomainInstance const& domain, SourceReading const& reading)
    {
        // Looked for first: libmxl logs every failed call, and a missing flow is looked for every 50 ms while waited for.
        std::error_code error;
        auto canonicalId = reading.name.flowId;
        std::transform(canonicalId.begin(), canonicalId.end(), canonicalId.begin(), [](char c) { return g_ascii_tolower(c); });
        if (!std::filesystem::exists(paths::dataFile(paths::flowDirectory(domain.domain(), canonicalId)), error))
        {
            return nullptr;
        }
        auto flow = std::make_unique<ReadFlow>();
        flow->instance = domain.get();
        flow->id = reading.name.flowId;
        mxlFlowReader reader = nullptr;
        auto const status = mxlCreateFlowReader(flow->instance, flow->id.c_str(), nullptr, &reader);
        if (status == MXL_ERR_FLOW_NOT_FOUND)
        {
            return nullptr;
        }
        if (status != MXL_STATUS_OK)
        {
            throw flowFailure(fmt::format("mxlCreateFlowReader of flow {} in domain \"{}\" failed: {}", flow->id, domain.domain(),
                                          mxl::statusName(status)));
        }
        flow->reader = client::FlowReader{flow->instance, reader};
        mxlFlowConfigInfo config{};
        describe(*flow, domain, reading.name, config);
        if (flow->format.format == MXL_DATA_FORMAT_AUDIO)
        {
            startSamples(*flow, reading);
        }
        else
        {
            flow->grains.emplace(flow->reader.get(), config, reading.startIndex);
        }
        return flow;
    }

    std::string missingFlowText(DomainInstance const& domain, SourceFlowName const& name)
    {
        return fmt::format("{} \"{}\" is not a flow of domain \"{}\" (mxl-info -d {} lists its flows)", propertyName(name.property),
                           name.flowId, domain.domain(), domain.domain());
    }
}
