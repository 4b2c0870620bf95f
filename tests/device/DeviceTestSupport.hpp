// Shared pieces of the device-flow tests: which device module a test process uses, what it has mapped, what a failed
// call logged and what a domain holds afterwards.
#pragma once

#include "FlowTestSupport.hpp"
#include "Skip.hpp"
#include <client/LogCapture.hpp>

#include <mxl/flow.h>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mxl::test
{
    inline constexpr char const* deviceOptions = R"({"payloadLocation": "device", "deviceIndex": 0})";
    inline constexpr std::size_t videoGrainBytes = 5120 * 1080;
    inline constexpr std::uint16_t videoSlices = 1080;

    // The fake module of that name (tests/device/CMakeLists.txt) is found first, for the rest of the process.
    inline void useFakeModule(char const* name)
    {
        ::setenv("MXL_DEVICE_MODULE_PATH", (std::string{MXL_FAKE_DEVICE_MODULES_DIR} + "/" + name).c_str(), 1);
    }

    // Whether a file whose name contains `name` is mapped into this process.
    inline bool isMapped(std::string const& name)
    {
        std::ifstream maps{"/proc/self/maps"};
        for (std::string line; std::getline(maps, line);)
        {
            if (line.find(name) != std::string::npos)
            {
                return true;
            }
        }
        return false;
    }

    // The names in a domain directory: after a refused creation there must be none (no flow, no temporary directory).
    inline std::vector<std::string> domainEntries(std::filesystem::path const& domain)
    {
        std::vector<std::string> names;
        for (auto const& entry : std::filesystem::directory_iterator{domain})
        {
            names.push_back(entry.path().filename().string());
        }
        return names;
    }

    struct CreateResult
    {
        mxlStatus status;
        mxlFlowWriter writer;
        mxlFlowConfigInfo config;
        std::string log;
    };

    // mxlCreateFlowWriter with the log it wrote.
    inline CreateResult createWriter(mxlInstance instance, std::string const& definition, char const* options)
    {
        CreateResult result{};
        client::LogCapture capture;
        result.status = mxlCreateFlowWriter(instance, definition.c_str(), options, &result.writer, &result.config, nullptr);
        result.log = capture.text();
        return result;
    }

    // A writer of the video flow with its payloads on device 0, which must be created.
    inline CreateResult requireDeviceWriter(mxlInstance instance)
    {
        auto created = createWriter(instance, flowDefinition(videoFlowFile), deviceOptions);
        REQUIRE(created.status == MXL_STATUS_OK);
        return created;
    }

    // A reader of the video flow, which must be created.
    inline mxlFlowReader requireVideoReader(mxlInstance instance)
    {
        mxlFlowReader reader = nullptr;
        REQUIRE(mxlCreateFlowReader(instance, flowId(videoFlowFile).c_str(), nullptr, &reader) == MXL_STATUS_OK);
        return reader;
    }

    // Grain `index` of a device flow opened for writing, and the bytes it is to hold (the grain pattern of `index`) in host
    // memory, to be copied to the device.
    struct OpenedDeviceGrain
    {
        mxlGrainInfo info{};
        std::uint8_t* payload = nullptr;
        std::vector<std::uint8_t> pattern;
    };

    inline OpenedDeviceGrain openPatternGrain(mxlFlowWriter writer, std::uint64_t index)
    {
        OpenedDeviceGrain opened;
        REQUIRE(mxlFlowWriterOpenGrain(writer, index, &opened.info, &opened.payload) == MXL_STATUS_OK);
        opened.pattern.resize(opened.info.grainSize);
        fillGrainPattern(opened.pattern.data(), opened.pattern.size(), index);
        return opened;
    }

    inline void checkLogHas(std::string const& log, std::initializer_list<std::string_view> fragments)
    {
        INFO("log: ", log);
        for (auto const fragment : fragments)
        {
            CHECK(log.find(fragment) != std::string::npos);
        }
    }

    // A device flow created with the build's module (MXL_DEVICE_MODULE_PATH unset); no writer and the log where this
    // machine has no usable GPU.
    struct DeviceWriter
    {
        mxlFlowWriter writer = nullptr;
        mxlFlowConfigInfo config{};
        std::string refusal;
    };

    inline DeviceWriter createDeviceWriter(mxlInstance instance)
    {
        ::unsetenv("MXL_DEVICE_MODULE_PATH");
        auto const created = createWriter(instance, flowDefinition(videoFlowFile), deviceOptions);
        if (created.status != MXL_STATUS_OK)
        {
            CHECK(created.status == MXL_ERR_UNSUPPORTED_OPERATION);
            return {nullptr, {}, created.log};
        }
        return {created.writer, created.config, {}};
    }

    inline std::string skipReason(std::string const& refusal)
    {
        auto const start = refusal.find("no usable CUDA device: ");
        return fmt::format("no CUDA device ({})", start == std::string::npos ? refusal : refusal.substr(start + 23));
    }

    // A reason to skip where the real module finds no GPU; the module stays loaded for the case.
    inline std::optional<std::string> realModuleMissesGpu(mxlInstance instance)
    {
        auto const probe = createDeviceWriter(instance);
        if (probe.writer == nullptr)
        {
            return skipReason(probe.refusal);
        }
        mxlReleaseFlowWriter(instance, probe.writer);
        return std::nullopt;
    }

    // The fake module "working" chosen before anything else of a fixture is made.
    struct UsingFakeModule
    {
        UsingFakeModule()
        {
            useFakeModule("working");
        }
    };

    // A fixture of the fake module's cases: a domain and a writer of the video flow with its payloads on device 0.
    struct FakeModuleWriter : UsingFakeModule
    {
        DomainFixture fixture{"device"};
        CreateResult const created = requireDeviceWriter(fixture.instance);
    };

    // Runs `check` on a fresh domain with the fake module "working".
    inline void onFakeModule(std::function<void(DomainFixture&)> const& check)
    {
        useFakeModule("working");
        DomainFixture fixture{"device"};
        check(fixture);
    }

    // Runs `check` on a fresh domain with the build's real module; skipped where that finds no GPU.
    inline void onGpu(std::function<void(DomainFixture&)> const& check)
    {
        DomainFixture fixture{"device"};
        MXL_SKIP_IF(realModuleMissesGpu(fixture.instance));
        check(fixture);
    }
}
