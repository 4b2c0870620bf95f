#include "Checksum.hpp"

namespace mxl::test
{
    std::uint64_t fnv1a(void const* data, std::size_t size, std::uint64_t hash) noexcept
    {
        auto const* bytes = static_cast<unsigned char const*>(data);
        for (std::size_t i = 0; i < size; ++i)
        {
            hash ^= bytes[i];
            hash *= 0x100000001b3ULL;
        }
        return hash;
    }
}
