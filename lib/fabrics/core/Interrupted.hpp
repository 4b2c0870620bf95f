// A blocking wait that a signal ended. Not a failure: the API returns MXL_ERR_INTERRUPTED without logging.
#pragma once

#include "common/Status.hpp"

#include <string>

namespace mxl::fabrics
{
    class Interrupted : public Error
    {
    public:
        explicit Interrupted(std::string const& message)
            : Error{MXL_ERR_INTERRUPTED, message}
        {
        }
    };
}
