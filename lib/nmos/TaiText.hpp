// NMOS writes TAI times (IS-04 versions, IS-05 activation times) as "<seconds>:<nanoseconds>".
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace mxl::nmos
{
    std::string taiText(std::uint64_t taiNs);

    // nullopt when `text` is not "<seconds>:<nanoseconds>" with nanoseconds below 1e9, or does not fit 64 bits of ns.
    std::optional<std::uint64_t> parseTaiText(std::string const& text);

    // Whether `text` is written "<seconds>:<nanoseconds>" with nanoseconds below 1e9, whatever the size of its seconds:
    // a time of that form that parseTaiText refuses lies past what 64 bits of ns hold (the year 2554).
    bool hasTaiForm(std::string const& text);
}
