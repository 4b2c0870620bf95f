// NMOS flow definitions, the JSON a writer hands mxlCreateFlowWriter, parsed in memory and turned into the config of
// a new flow's header the way the writer does before it creates any file. A rejection is an mxl::Error naming the
// field; an accepted definition has a canonical id and a usable ring geometry.
#include "FuzzCheck.hpp"
#include "FuzzEntry.hpp"
#include "common/Status.hpp"
#include "flow/FlowDefinition.hpp"

#include <string_view>

namespace
{
    using mxl::fuzz::check;

    void checkAccepted(mxl::FlowDefinition const& definition)
    {
        check(mxl::formatUuid(definition.id) == definition.idString, "idString is the text of id");
        check(mxl::parseUuid(definition.idString) == definition.id, "idString parses back to id");
        check(definition.rate.numerator > 0 && definition.rate.denominator > 0, "an accepted rate is positive");

        auto const historyNs = mxl::defaultHistoryDurationNs;
        auto const config = mxl::makeFlowConfig(definition, {}, historyNs);
        check(config.common.maxCommitBatchSizeHint > 0 && config.common.maxSyncBatchSizeHint > 0, "default batch hints are positive");
        check(config.common.maxSyncBatchSizeHint % config.common.maxCommitBatchSizeHint == 0, "sync is a multiple of commit");
    }
}

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size)
{
    try
    {
        checkAccepted(mxl::parseFlowDefinition({reinterpret_cast<char const*>(data), size}));
    }
    catch (mxl::Error const& e)
    {
        check(e.status() == MXL_ERR_UNKNOWN, "a definition is rejected with MXL_ERR_UNKNOWN");
    }
    return 0;
}
