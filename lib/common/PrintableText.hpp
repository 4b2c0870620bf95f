// Text from outside the process (a peer's answer, a URL from a request, a file's bytes) as a log line shows it: every
// control byte escaped, so that it can neither end the line and forge the next one (journald reads "<0>" at the start of
// a line as the priority "emerg") nor drive the terminal, and cut where it runs long.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace mxl
{
    // `text` with \n, \r and \t as those two characters and any other byte below 0x20, or 0x7f, as \xNN; bytes of UTF-8
    // sequences stay. Longer than `maxChars` characters of the original: cut there, followed by "... (N bytes)".
    [[nodiscard]] std::string printableText(std::string_view text, std::size_t maxChars = std::string_view::npos);

    // Whether printableText would change `text` (escape a byte or cut it).
    [[nodiscard]] bool needsEscaping(std::string_view text, std::size_t maxChars = std::string_view::npos) noexcept;
}
