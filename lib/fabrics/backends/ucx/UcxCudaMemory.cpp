#include "fabrics/backends/ucx/UcxCudaMemory.hpp"

#include <ucp/api/ucp.h>

namespace mxl::fabrics::ucx
{
    namespace
    {
        bool askUcx() noexcept
        {
            ucp_params_t params{};
            params.field_mask = UCP_PARAM_FIELD_FEATURES;
            params.features = UCP_FEATURE_RMA;
            ucp_context_h context = nullptr;
            if (ucp_init(&params, nullptr, &context) != UCS_OK)
            {
                return false;
            }
            ucp_context_attr_t attributes{};
            attributes.field_mask = UCP_ATTR_FIELD_MEMORY_TYPES;
            auto const queried = ucp_context_query(context, &attributes) == UCS_OK;
            ucp_cleanup(context);
            return queried && (attributes.memory_types & UCS_BIT(UCS_MEMORY_TYPE_CUDA)) != 0;
        }
    }

    bool ucxRegistersCudaMemory() noexcept
    {
        static bool const registers = askUcx();
        return registers;
    }
}
