// Where a flow's files live inside a domain (docs/memory-layout.md): every path of the on-disk contract is spelled
// here, for the libraries and for the programs and elements that look at a domain's folder themselves.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace mxl::paths
{
    inline constexpr std::string_view flowDirectoryExtension = ".mxl-flow";
    inline constexpr std::string_view tempDirectoryPrefix = ".mxl-tmp-";

    // `canonicalId` is the lowercase 8-4-4-4-12 form.
    inline std::filesystem::path flowDirectory(std::filesystem::path const& domain, std::string_view canonicalId)
    {
        return domain / (std::string{canonicalId} + std::string{flowDirectoryExtension});
    }

    inline std::filesystem::path dataFile(std::filesystem::path const& flowDirectory)
    {
        return flowDirectory / "data";
    }

    inline std::filesystem::path accessFile(std::filesystem::path const& flowDirectory)
    {
        return flowDirectory / "access";
    }

    inline std::filesystem::path flowDefinitionFile(std::filesystem::path const& flowDirectory)
    {
        return flowDirectory / "flow_def.json";
    }

    inline std::filesystem::path grainsDirectory(std::filesystem::path const& flowDirectory)
    {
        return flowDirectory / "grains";
    }

    inline std::filesystem::path grainFile(std::filesystem::path const& flowDirectory, std::uint32_t slot)
    {
        return grainsDirectory(flowDirectory) / ("data." + std::to_string(slot));
    }

    // Device flows only: the DeviceRecord of the payloads in device memory.
    inline std::filesystem::path deviceFile(std::filesystem::path const& flowDirectory)
    {
        return flowDirectory / "device";
    }

    inline std::filesystem::path channelsFile(std::filesystem::path const& flowDirectory)
    {
        return flowDirectory / "channels";
    }
}
