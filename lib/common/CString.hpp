// Strings handed across the C API in lists the caller frees through us: a copy allocated with new[], freed with delete[].
#pragma once

#include <cstring>
#include <string_view>

namespace mxl
{
    [[nodiscard]] inline char* newCString(std::string_view text)
    {
        auto* copy = new char[text.size() + 1];
        std::memcpy(copy, text.data(), text.size());
        copy[text.size()] = '\0';
        return copy;
    }
}
