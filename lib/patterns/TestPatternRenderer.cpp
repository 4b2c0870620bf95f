#include "TestPatternRenderer.hpp"

#include "ColourBars.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace mxl::patterns
{
    TestPatternRenderer::TestPatternRenderer(std::uint32_t width, std::uint32_t height, bool withKey)
        : _width{width}
        , _height{height}
        , _withKey{withKey}
    {
        if (width < 2 || height < 1)
        {
            throw std::invalid_argument{"test pattern needs at least 2 x 1 pixels"};
        }
        std::vector<YCbCr10> previous;
        for (std::uint32_t y = 0; y < height; ++y)
        {
            auto row = barsRow(y);
            if (row != previous)
            {
                _distinctFillLines.emplace_back(fillLineBytes());
                packV210Line(row, _distinctFillLines.back());
                previous = std::move(row);
            }
            _fillLineOfRow.push_back(_distinctFillLines.size() - 1);
        }
        if (withKey)
        {
            std::vector<std::uint16_t> const key(width, keyHalf);
            _keyBackgroundLine.resize(keyLineBytes());
            packKeyLine(key, _keyBackgroundLine);
        }
    }

    std::vector<YCbCr10> TestPatternRenderer::barsRow(std::uint32_t y) const
    {
        std::vector<YCbCr10> row(_width);
        for (std::uint32_t x = 0; x < _width; ++x)
        {
            row[x] = barsColour(x, y, _width, _height);
        }
        return row;
    }

    void TestPatternRenderer::render(std::uint64_t grainIndex, std::uint32_t firstLine, std::uint32_t lineCount,
                                     std::span<std::uint8_t> payload) const
    {
        if (payload.size() < grainBytes() || firstLine > _height || lineCount > _height - firstLine)
        {
            throw std::invalid_argument{"render range outside the grain"};
        }
        auto const box = movingBox(grainIndex, _width, _height);
        auto const fillBytes = fillLineBytes();
        auto const keyBytes = keyLineBytes();
        auto* const keyPlane = payload.data() + std::size_t{fillBytes} * _height;

        // The box rows all look the same, so their fill and key lines are packed once per call.
        std::vector<std::uint8_t> boxFillLine;
        std::vector<std::uint8_t> boxKeyLine;
        auto const boxRowsEnd = std::min(box.y + box.size, _height);
        if (box.y < firstLine + lineCount && boxRowsEnd > firstLine)
        {
            auto row = barsRow(box.y);
            std::fill_n(row.begin() + box.x, box.size, colours::white100);
            boxFillLine.resize(fillBytes);
            packV210Line(row, boxFillLine);
            if (_withKey)
            {
                std::vector<std::uint16_t> key(_width, keyHalf);
                std::fill_n(key.begin() + box.x, box.size, keyOpaque);
                boxKeyLine.resize(keyBytes);
                packKeyLine(key, boxKeyLine);
            }
        }

        for (auto y = firstLine; y < firstLine + lineCount; ++y)
        {
            bool const inBox = y >= box.y && y < boxRowsEnd;
            auto const& fill = inBox ? boxFillLine : _distinctFillLines[_fillLineOfRow[y]];
            std::memcpy(payload.data() + std::size_t{fillBytes} * y, fill.data(), fillBytes);
            if (_withKey)
            {
                auto const& key = inBox ? boxKeyLine : _keyBackgroundLine;
                std::memcpy(keyPlane + std::size_t{keyBytes} * y, key.data(), keyBytes);
            }
        }
    }
}
