// Renders the test picture (ColourBars.hpp) of a grain into a v210 or v210a grain payload, line range by line range,
// so that a writer can fill and commit a grain in slices. The picture has few distinct lines, so they are packed once
// and copied; only the lines crossed by the box are packed per grain.
#pragma once

#include "Packings.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace mxl::patterns
{
    class TestPatternRenderer
    {
    public:
        // `height` is the number of lines of a grain (the field height for interlaced flows). With `withKey` the
        // payload is v210a: the whole fill plane, then the whole key plane.
        TestPatternRenderer(std::uint32_t width, std::uint32_t height, bool withKey);

        [[nodiscard]] std::uint32_t fillLineBytes() const noexcept
        {
            return v210LineBytes(_width);
        }

        [[nodiscard]] std::uint32_t keyLineBytes() const noexcept
        {
            return _withKey ? patterns::keyLineBytes(_width) : 0;
        }

        [[nodiscard]] std::size_t grainBytes() const noexcept
        {
            return (std::size_t{fillLineBytes()} + keyLineBytes()) * _height;
        }

        // Writes lines [firstLine, firstLine + lineCount) of grain `grainIndex` into `payload` (a whole grain of
        // grainBytes(); other lines are left untouched).
        void render(std::uint64_t grainIndex, std::uint32_t firstLine, std::uint32_t lineCount, std::span<std::uint8_t> payload) const;

    private:
        std::uint32_t _width;
        std::uint32_t _height;
        bool _withKey;
        // Packed fill line of the bars for each line (indices into _distinctFillLines), and the packed key background.
        std::vector<std::vector<std::uint8_t>> _distinctFillLines;
        std::vector<std::size_t> _fillLineOfRow;
        std::vector<std::uint8_t> _keyBackgroundLine;

        std::vector<YCbCr10> barsRow(std::uint32_t y) const;
    };
}
