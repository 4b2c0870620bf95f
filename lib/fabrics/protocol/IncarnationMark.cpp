#include "fabrics/protocol/IncarnationMark.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace mxl::fabrics
{
    namespace
    {
        constexpr std::array<std::uint8_t, 4> magic{'M', 'X', 'L', 'I'};
        constexpr std::uint8_t version = 1;
        constexpr std::size_t markBytes = magic.size() + 1 + 16;

        std::uint64_t numberAt(std::span<std::uint8_t const> data, std::size_t offset)
        {
            std::uint64_t number = 0;
            for (std::size_t byte = 0; byte < 8; ++byte)
            {
                number |= std::uint64_t{data[offset + byte]} << (8 * byte);
            }
            return number;
        }
    }

    std::vector<std::uint8_t> incarnationMark(std::uint64_t targetId, std::uint64_t epoch)
    {
        std::vector<std::uint8_t> mark(magic.begin(), magic.end());
        mark.push_back(version);
        for (auto const number : {targetId, epoch})
        {
            for (int byte = 0; byte < 8; ++byte)
            {
                mark.push_back(static_cast<std::uint8_t>(number >> (8 * byte)));
            }
        }
        return mark;
    }

    std::string incarnationProblem(std::span<std::uint8_t const> data, std::uint64_t targetId, std::uint64_t epoch)
    {
        if (data.size() < magic.size() || !std::equal(magic.begin(), magic.end(), data.begin()))
        {
            return {};
        }
        if (data.size() < markBytes || data[magic.size()] != version)
        {
            return "its connection request names an incarnation in a form this target does not read";
        }
        auto const askedId = numberAt(data, magic.size() + 1);
        auto const askedEpoch = numberAt(data, magic.size() + 9);
        // A ticket without an epoch (as the SDK's are) names the target by its id alone.
        if (askedId == targetId && (askedEpoch == 0 || askedEpoch == epoch))
        {
            return {};
        }
        return fmt::format("it holds the ticket of another target at this address (id {}, epoch {}; this one is id {}, epoch {}): a "
                           "stale ticket",
                           askedId, askedEpoch, targetId, epoch);
    }
}
