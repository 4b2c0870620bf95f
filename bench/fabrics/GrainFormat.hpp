// The video grains the benchmark moves: v210 frames, whose payload size follows from the frame size.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace mxl::bench
{
    // Every mxl grain region starts with this header, and the raw baseline writes it too (docs/memory-layout.md).
    constexpr std::size_t grainHeaderBytes = 8192;

    struct GrainFormat
    {
        std::string name;
        int width;
        int height;

        // v210 packs 6 pixels into 16 bytes and pads every line to a multiple of 128 bytes.
        [[nodiscard]] std::size_t payloadBytes() const noexcept;

        [[nodiscard]] std::size_t regionBytes() const noexcept
        {
            return grainHeaderBytes + payloadBytes();
        }
    };

    // "1080p" or "2160p"; nullopt for anything else.
    std::optional<GrainFormat> grainFormatNamed(std::string_view name);
}
