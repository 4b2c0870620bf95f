// Shared pieces of the flow tests: a domain with an instance, the repository's flow definitions, whole-grain writes.
#pragma once

#include "Checksum.hpp"
#include "GrainPattern.hpp"
#include "TempDomain.hpp"

#include <mxl/flow.h>
#include <mxl/mxl.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace mxl::test
{
    inline constexpr char const* videoFlowFile = "flows/v210_1080p25.json";
    inline constexpr char const* audioFlowFile = "flows/audio_48k_stereo.json";
    inline constexpr char const* dataFlowFile = "flows/smpte291_59.94.json";

    // A repository flow definition, optionally with another id.
    inline std::string flowDefinition(char const* file, std::string const& id = {})
    {
        auto json = nlohmann::json::parse(readFile(sourcePath(file)));
        if (!id.empty())
        {
            json["id"] = id;
        }
        return json.dump();
    }

    inline std::string flowId(char const* file)
    {
        return nlohmann::json::parse(readFile(sourcePath(file)))["id"].get<std::string>();
    }

    class DomainFixture
    {
    public:
        explicit DomainFixture(std::string const& tag = "flow")
            : domain{tag}
            , instance{mxlCreateInstance(domain.str().c_str(), nullptr)}
        {
        }

        ~DomainFixture()
        {
            if (instance != nullptr)
            {
                mxlDestroyInstance(instance);
            }
        }

        DomainFixture(DomainFixture const&) = delete;
        DomainFixture& operator=(DomainFixture const&) = delete;

        TempDomain domain;
        mxlInstance instance;
    };

    // Opens, fills with the pattern of `index` and commits a whole grain.
    inline mxlStatus writeGrain(mxlFlowWriter writer, std::uint64_t index, std::uint32_t flags = 0)
    {
        mxlGrainInfo info;
        std::uint8_t* payload = nullptr;
        if (auto const status = mxlFlowWriterOpenGrain(writer, index, &info, &payload); status != MXL_STATUS_OK)
        {
            return status;
        }
        fillGrainPattern(payload, info.grainSize, index);
        info.validSlices = info.totalSlices;
        info.flags = flags;
        return mxlFlowWriterCommitGrain(writer, &info);
    }
}
