// Text from outside the process in a log line (common/PrintableText.hpp): control bytes escaped, UTF-8 kept, long text
// cut, and the library log writing every message as one line.
#include "common/Log.hpp"
#include "common/PrintableText.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace
{
    std::vector<std::string> lines;

    void keep(mxl::log::Level, std::string_view message) noexcept
    {
        lines.emplace_back(message);
    }
}

TEST_CASE("printable text escapes control bytes, keeps UTF-8 and cuts long text saying how long it was")
{
    using mxl::printableText;
    CHECK(printableText("plain text") == "plain text");
    CHECK(printableText("a\nb\rc\td") == "a\\nb\\rc\\td");
    CHECK(printableText(std::string{"\x1b[31m\x00\x7f", 7}) == "\\x1b[31m\\x00\\x7f");
    CHECK(printableText("Caf\xc3\xa9 \xe2\x80\x94 ok") == "Caf\xc3\xa9 \xe2\x80\x94 ok");
    CHECK(printableText("abcdefgh", 3) == "abc... (8 bytes)");
    CHECK(printableText("abc", 3) == "abc");
    CHECK_FALSE(mxl::needsEscaping("plain text"));
    CHECK(mxl::needsEscaping("two\nlines"));
    CHECK(mxl::needsEscaping("abcd", 3));
}

TEST_CASE("the library log writes a message that quotes a line break as one line")
{
    lines.clear();
    mxl::log::redirect(&keep);
    mxl::log::write(mxl::log::Level::Warn, "answered 500: oops\n<0>forged emergency");
    mxl::log::write(mxl::log::Level::Warn, "a plain line");
    mxl::log::redirect(nullptr);
    REQUIRE(lines.size() == 2);
    CHECK(lines[0] == "answered 500: oops\\n<0>forged emergency");
    CHECK(lines[1] == "a plain line");
}
