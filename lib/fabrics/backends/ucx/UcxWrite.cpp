#include "fabrics/backends/ucx/UcxWrite.hpp"

#include <ucp/api/ucp.h>

namespace mxl::fabrics::ucx
{
    namespace
    {
        UcxWrite::Step after(UcxWrite::Step step) noexcept
        {
            return step == UcxWrite::Step::Flushing ? UcxWrite::Step::Flushed : UcxWrite::Step::Done;
        }
    }

    void UcxWrite::onRequestDone(void* request, ucs_status_t status, void* user) noexcept
    {
        auto& write = *static_cast<UcxWrite*>(user);
        write.keepFirstError(status);
        write.step = after(write.step);
        ucp_request_free(request);
    }

    void UcxWrite::onSent(void* request, ucs_status_t status, void* user) noexcept
    {
        auto& write = *static_cast<UcxWrite*>(user);
        write.keepFirstError(status);
        if (--write.outstanding == 0 && write.step == Step::Sending)
        {
            write.step = Step::Done;
        }
        ucp_request_free(request);
    }

    void UcxWrite::trackSent(void* request) noexcept
    {
        if (UCS_PTR_IS_ERR(request))
        {
            keepFirstError(UCS_PTR_STATUS(request));
            return;
        }
        if (request != nullptr)
        {
            ++outstanding;
        }
    }

    void UcxWrite::allPosted(bool failed) noexcept
    {
        refused = failed;
        if (failed)
        {
            connection = nullptr;
        }
        step = outstanding == 0 ? Step::Done : Step::Sending;
    }

    void UcxWrite::track(void* request, Step next) noexcept
    {
        if (request == nullptr)
        {
            step = after(next);
            return;
        }
        if (UCS_PTR_IS_ERR(request))
        {
            keepFirstError(UCS_PTR_STATUS(request));
            step = Step::Done;
            return;
        }
        step = next;
    }
}
