// A set of grain or sample indices kept as disjoint inclusive ranges, first -> last: what a redundant merge has
// committed to the real flow. Each path delivers in order, so a run of any length stays one entry.
#pragma once

#include <cstdint>
#include <map>

namespace mxl::bridge
{
    class IndexRanges
    {
    public:
        // Adds [first, last]; indices already in the set may be given again.
        void insert(std::uint64_t first, std::uint64_t last);

        [[nodiscard]] bool contains(std::uint64_t index) const;

        // How many indices of the set lie in [from, to).
        [[nodiscard]] std::uint64_t countBetween(std::uint64_t from, std::uint64_t to) const;

        // Drops every range that ends before `index`; a range across it is kept whole.
        void forgetBefore(std::uint64_t index);

        [[nodiscard]] bool empty() const noexcept
        {
            return _ranges.empty();
        }

        // The highest index of a non-empty set.
        [[nodiscard]] std::uint64_t last() const
        {
            return _ranges.rbegin()->second;
        }

    private:
        std::map<std::uint64_t, std::uint64_t> _ranges;
    };
}
