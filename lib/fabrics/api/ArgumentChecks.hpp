// The argument checks of the C API: NULL pointers and the structSize of the extension's structs, each refused with
// MXL_ERR_INVALID_ARG naming the argument.
#pragma once

#include "common/Status.hpp"

namespace mxl::fabrics
{
    template <typename T>
    void require(T const* pointer, char const* name)
    {
        if (pointer == nullptr)
        {
            fail(MXL_ERR_INVALID_ARG, "{} is NULL", name);
        }
    }

    // The callers of the extension's getters set structSize; a smaller one is a struct the library would overrun.
    template <typename Struct>
    void requireStructSize(Struct const* out, char const* name)
    {
        require(out, name);
        if (out->structSize < sizeof(Struct))
        {
            fail(MXL_ERR_INVALID_ARG, "{}->structSize is {}, expected at least {}", name, out->structSize, sizeof(Struct));
        }
    }
}
