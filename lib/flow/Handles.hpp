// The C API's opaque handles turned back into library objects; a NULL, foreign or wrong-kind handle is an error with
// the status the SDK gives for it.
#pragma once

#include "FlowSynchronizationGroup.hpp"
#include "Instance.hpp"

#include "common/Status.hpp"

namespace mxl
{
    inline Instance& instanceFrom(mxlInstance instance)
    {
        if (instance == nullptr)
        {
            fail(MXL_ERR_INVALID_ARG, "the instance is NULL, expected one from mxlCreateInstance");
        }
        return *instance;
    }

    // Reader is DiscreteFlowReader, ContinuousFlowReader, FlowReader (either kind) or mxlFlowReader_t (only checked
    // for NULL, never dereferenced).
    template <typename Reader>
    Reader& readerFrom(mxlFlowReader reader)
    {
        auto* const typed = dynamic_cast<Reader*>(reader);
        if (typed == nullptr)
        {
            fail(MXL_ERR_INVALID_FLOW_READER, "reader {} is NULL or not a reader of this kind of flow", static_cast<void*>(reader));
        }
        return *typed;
    }

    template <typename Writer>
    Writer& writerFrom(mxlFlowWriter writer)
    {
        auto* const typed = dynamic_cast<Writer*>(writer);
        if (typed == nullptr)
        {
            fail(MXL_ERR_INVALID_FLOW_WRITER, "writer {} is NULL or not a writer of this kind of flow", static_cast<void*>(writer));
        }
        return *typed;
    }

    inline FlowSynchronizationGroup& groupFrom(mxlFlowSynchronizationGroup group)
    {
        if (group == nullptr)
        {
            fail(MXL_ERR_INVALID_ARG, "the synchronization group is NULL");
        }
        return *group;
    }

    // Output parameters of the C API must not be NULL.
    template <typename T>
    T& required(T* pointer, char const* name)
    {
        if (pointer == nullptr)
        {
            fail(MXL_ERR_INVALID_ARG, "{} is NULL", name);
        }
        return *pointer;
    }
}
