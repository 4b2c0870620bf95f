// Target-info tickets (JSON, docs/fabrics.md) through mxlFabricsTargetInfoFromString, the C API an initiator feeds
// whatever text it was handed. A ticket that parses must survive ToString and parse again to the same JSON; a rejected
// one must come back as one of the two documented statuses, from the parser's own checks rather than a library
// exception it failed to anticipate.
#include "FuzzCheck.hpp"
#include "FuzzEntry.hpp"
#include "common/Status.hpp"
#include "fabrics/ticket/TargetInfo.hpp"

#include <mxl/fabrics.h>

#include <string>

namespace
{
    using mxl::fuzz::check;

    std::string toString(mxlFabricsTargetInfo info)
    {
        std::size_t size = 0;
        check(mxlFabricsTargetInfoToString(info, nullptr, &size) == MXL_STATUS_OK, "ToString reports the size of a parsed ticket");
        std::string text(size, '\0');
        check(mxlFabricsTargetInfoToString(info, text.data(), &size) == MXL_STATUS_OK, "ToString fills a buffer of that size");
        text.resize(size - 1);
        return text;
    }

    // Only mxl::Error may leave the parser: anything else is a case its validation let through.
    bool parsesDirectly(std::string const& text)
    {
        try
        {
            auto const info = mxl::fabrics::TargetInfo::fromJson(text.c_str());
            check(mxl::fabrics::TargetInfo::fromJson(info.toJson().c_str()) == info, "toJson then fromJson gives the same ticket");
            // What the demo and mxl-fabrics-info print for any ticket they were given.
            static_cast<void>(info.describeAddress());
            return true;
        }
        catch (mxl::Error const& e)
        {
            check(e.status() == MXL_ERR_INVALID_ARG || e.status() == MXL_ERR_UNKNOWN, "a ticket is rejected with INVALID_ARG or UNKNOWN");
            return false;
        }
    }
}

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size)
{
    // The C API takes a C string: an embedded NUL ends the ticket there.
    std::string const text{reinterpret_cast<char const*>(data), size};
    bool const accepted = parsesDirectly(text);

    mxlFabricsTargetInfo info = nullptr;
    auto const status = mxlFabricsTargetInfoFromString(text.c_str(), &info);
    check((status == MXL_STATUS_OK) == accepted, "the C API accepts exactly what the parser accepts");
    if (status != MXL_STATUS_OK)
    {
        check(status == MXL_ERR_INVALID_ARG || status == MXL_ERR_UNKNOWN, "FromString rejects with INVALID_ARG or UNKNOWN");
        return 0;
    }
    check(info != nullptr, "FromString returns a ticket with MXL_STATUS_OK");
    auto const json = toString(info);
    check(mxlFabricsFreeTargetInfo(info) == MXL_STATUS_OK, "a parsed ticket can be freed");

    mxlFabricsTargetInfo again = nullptr;
    check(mxlFabricsTargetInfoFromString(json.c_str(), &again) == MXL_STATUS_OK, "ToString's output parses");
    check(toString(again) == json, "ToString's output re-serialises to the same JSON");
    check(mxlFabricsFreeTargetInfo(again) == MXL_STATUS_OK, "a re-parsed ticket can be freed");
    return 0;
}
