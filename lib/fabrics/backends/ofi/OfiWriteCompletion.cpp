#include "fabrics/backends/ofi/OfiWriteCompletion.hpp"

#include "fabrics/backends/ofi/FabricError.hpp"
#include "fabrics/backends/ofi/OfiContext.hpp"

namespace mxl::fabrics
{
    std::optional<WriteCompletion> writeCompletionOf(std::optional<Completion> const& completion)
    {
        if (!completion)
        {
            return std::nullopt;
        }
        WriteCompletion write;
        write.writeId = idOf(completion->context);
        if (completion->error != 0)
        {
            write.status = isConnectionLoss(completion->error) ? MXL_ERR_INTERRUPTED : statusFromFabricError(completion->error);
            write.reason = fmt::format("{} ({})", completion->errorText, completion->error);
        }
        return write;
    }
}
