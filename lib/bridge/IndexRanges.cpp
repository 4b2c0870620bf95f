#include "bridge/IndexRanges.hpp"

#include <algorithm>
#include <iterator>

namespace mxl::bridge
{
    void IndexRanges::insert(std::uint64_t first, std::uint64_t last)
    {
        // Every range that overlaps or touches [first, last] is folded into one entry.
        auto range = _ranges.upper_bound(first);
        if (range != _ranges.begin() && std::prev(range)->second + 1 >= first)
        {
            --range;
        }
        while (range != _ranges.end() && range->first <= last + 1)
        {
            first = std::min(first, range->first);
            last = std::max(last, range->second);
            range = _ranges.erase(range);
        }
        _ranges.emplace(first, last);
    }

    bool IndexRanges::contains(std::uint64_t index) const
    {
        auto const after = _ranges.upper_bound(index);
        return after != _ranges.begin() && index <= std::prev(after)->second;
    }

    std::uint64_t IndexRanges::countBetween(std::uint64_t from, std::uint64_t to) const
    {
        if (from >= to)
        {
            return 0;
        }
        auto range = _ranges.upper_bound(from);
        if (range != _ranges.begin())
        {
            --range;
        }
        std::uint64_t count = 0;
        for (; range != _ranges.end() && range->first < to; ++range)
        {
            auto const low = std::max(range->first, from);
            auto const high = std::min(range->second + 1, to);
            count += high > low ? high - low : 0;
        }
        return count;
    }

    void IndexRanges::forgetBefore(std::uint64_t index)
    {
        while (!_ranges.empty() && _ranges.begin()->second < index)
        {
            _ranges.erase(_ranges.begin());
        }
    }
}
