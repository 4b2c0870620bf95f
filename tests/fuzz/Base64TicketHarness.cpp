// The ticket as mxl-fabrics-demo takes it on the command line: base64 of the JSON, checked by the demo before the
// library sees it. Also the base64 codec itself: whatever decodes must re-encode to text that decodes to the same
// bytes, and the input taken as bytes must survive encode then decode.
#include "FuzzCheck.hpp"
#include "FuzzEntry.hpp"
#include "Ticket.hpp"
#include "ToolError.hpp"
#include "common/Base64.hpp"

#include <string>

namespace
{
    using mxl::fuzz::check;

    void checkCodec(std::string_view input)
    {
        check(mxl::decodeBase64(mxl::encodeBase64(input)) == std::string{input}, "decode(encode(bytes)) == bytes");
        if (auto const decoded = mxl::decodeBase64(input))
        {
            check(decoded->size() == input.size() / 4 * 3 - (input.ends_with("==")  ? 2
                                                             : input.ends_with('=') ? 1
                                                                                    : 0),
                  "decoded length follows from the text length and padding");
            check(mxl::decodeBase64(mxl::encodeBase64(*decoded)) == decoded, "decode(encode(decode(text))) == decode(text)");
        }
    }
}

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size)
{
    std::string const argument{reinterpret_cast<char const*>(data), size};
    checkCodec(argument);
    // "@path" reads a file: not an input to fuzz, and a side effect on the disk.
    if (argument.starts_with('@'))
    {
        return 0;
    }
    try
    {
        auto const ticket = mxl::demo::loadTicket(argument, std::nullopt);
        check(!ticket.provider.empty(), "an accepted ticket names its provider");
    }
    catch (mxl::tools::ToolError const& e)
    {
        check(e.kind() == mxl::client::ErrorKind::Usage, "a bad ticket is a usage error");
    }
    return 0;
}
