// The counters of a tool's once-a-second "stats" line, by key: mxl-test-source prints
// "stats video written=W late=L invalid=I", the mxl-fabrics-demo initiator "stats: grains=G ... late=L lost=L
// skipped=S1,S2 invalidated=I1,I2 ...". A list (one count per target) counts as its sum.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace mxl::bench::capacity
{
    class StatsLine
    {
    public:
        // nullopt unless `line` starts with `prefix`; tokens that are not key=number(,number...) are ignored.
        static std::optional<StatsLine> parse(std::string_view line, std::string_view prefix);

        // Throws naming the key and the line when the line has no such counter.
        [[nodiscard]] std::uint64_t at(std::string_view key) const;

    private:
        std::string _line;
        std::map<std::string, std::uint64_t, std::less<>> _counters;
    };

    // What a counter grew by from `start` to `end`; throws if it went down (the tools only ever count up).
    std::uint64_t growth(StatsLine const& start, StatsLine const& end, std::string_view key);
}
