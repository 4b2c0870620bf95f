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

    // A reader or writer handle as the class `Typed` of its hierarchy; `role` ("reader", "writer") words the failure.
    template <typename Typed, typename Handle>
    Typed& typedFrom(Handle handle, mxlStatus status, char const* role)
    {
        auto* const typed = dynamic_cast<Typed*>(handle);
        if (typed == nullptr)
        {
            fail(status, "{} {} is NULL or not a {} of this kind of flow", role, static_cast<void*>(handle), role);
        }
        return *typed;
    }

    // Reader is DiscreteFlowReader, ContinuousFlowReader, FlowReader (either kind) or mxlFlowReader_t (only checked
    // for NULL, never dereferenced).
    template <typename Reader>
    Reader& readerFrom(mxlFlowReader reader)
    {
        return typedFrom<Reader>(reader, MXL_ERR_INVALID_FLOW_READER, "reader");
    }

    template <typename Writer>
    Writer& writerFrom(mxlFlowWriter writer)
    {
        return typedFrom<Writer>(writer, MXL_ERR_INVALID_FLOW_WRITER, "writer");
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
