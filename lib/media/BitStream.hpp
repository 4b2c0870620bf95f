// Fields packed most significant bit first, as RFC 8331 and SMPTE ST 2038 lay them out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace mxl::media
{
    class BitWriter
    {
    public:
        explicit BitWriter(std::vector<std::uint8_t>& bytes)
            : _bytes{bytes}
            , _bitCount{bytes.size() * 8}
        {
        }

        void put(std::uint32_t value, unsigned bits);

        // Writes `fill` bits up to the next multiple of `bits` bits from `originBytes` of the buffer.
        void alignTo(unsigned bits, bool fill, std::size_t originBytes = 0);

    private:
        std::vector<std::uint8_t>& _bytes;
        std::size_t _bitCount;
    };

    class BitReader
    {
    public:
        explicit BitReader(std::span<std::uint8_t const> bytes, std::size_t startByte = 0)
            : _bytes{bytes}
            , _position{startByte * 8}
        {
        }

        // The caller checks remainingBits() first.
        std::uint32_t get(unsigned bits) noexcept;

        [[nodiscard]] std::size_t remainingBits() const noexcept
        {
            return _bytes.size() * 8 - _position;
        }

        [[nodiscard]] std::size_t bitPosition() const noexcept
        {
            return _position;
        }

    private:
        std::span<std::uint8_t const> _bytes;
        std::size_t _position;
    };
}
