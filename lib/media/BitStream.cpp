#include "BitStream.hpp"

namespace mxl::media
{
    void BitWriter::put(std::uint32_t value, unsigned bits)
    {
        for (unsigned i = bits; i-- > 0;)
        {
            if (_bitCount % 8 == 0)
            {
                _bytes.push_back(0);
            }
            if (((value >> i) & 1U) != 0)
            {
                _bytes.back() = static_cast<std::uint8_t>(_bytes.back() | (0x80U >> (_bitCount % 8)));
            }
            ++_bitCount;
        }
    }

    void BitWriter::alignTo(unsigned bits, bool fill, std::size_t originBytes)
    {
        while ((_bitCount - originBytes * 8) % bits != 0)
        {
            put(fill ? 1U : 0U, 1);
        }
    }

    std::uint32_t BitReader::get(unsigned bits) noexcept
    {
        std::uint32_t value = 0;
        for (unsigned i = 0; i < bits; ++i, ++_position)
        {
            value = (value << 1) | ((_bytes[_position / 8] >> (7 - _position % 8)) & 1U);
        }
        return value;
    }
}
