// mxl:// addresses as the tools take them on the command line. A malformed one is a usage error; an accepted one,
// formatted again, must parse to the same domain and flow ids.
#include "FuzzCheck.hpp"
#include "FuzzEntry.hpp"

#include <client/ClientError.hpp>
#include <client/MxlAddress.hpp>

#include <string_view>

using mxl::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size)
{
    try
    {
        auto const address = mxl::client::parseMxlAddress({reinterpret_cast<char const*>(data), size});
        check(!address.domain.empty(), "an accepted address names a domain");
        auto const again = mxl::client::parseMxlAddress(mxl::client::formatMxlAddress(address.domain, address.flowIds));
        check(again.domain == address.domain, "format then parse keeps the domain");
        check(again.flowIds == address.flowIds, "format then parse keeps the flow ids");
    }
    catch (mxl::client::ClientError const& e)
    {
        check(e.kind() == mxl::client::ErrorKind::Usage, "a bad address is a usage error");
    }
    return 0;
}
