// Ownership of libmxl-fabrics handles for programs that also hold their own mxl instance and flow handles (MxlHandles):
// a fabrics instance built on an existing mxl instance, targets, initiators and target infos, each released when it
// goes out of scope. Declare them after the flow handles they use, so that they are released first.
// Header-only so that programs without fabrics never link libmxl-fabrics.
#pragma once

#include "ClientError.hpp"
#include "FabricsBackend.hpp"
#include "OwnedHandle.hpp"
#include "common/StatusName.hpp"

#include <mxl/fabrics.h>
#include <mxl/fabrics_batch.h>
#include <mxl/fabrics_state.h>

#include <fmt/format.h>

#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

namespace mxl::client
{
    class FabricsOnInstance : public OwnedHandle<std::nullptr_t, mxlFabricsInstance, ::mxlFabricsDestroyInstance>
    {
    public:
        // `backend` names the transport (libmxl-fabrics-<backend>.so); the library logs why it cannot be loaded. Throws
        // ClientError(Failure) naming the backend and the status.
        FabricsOnInstance(mxlInstance instance, std::string const& backend)
            : OwnedHandle{nullptr, create(instance, backend)}
        {
        }

    private:
        static mxlFabricsInstance create(mxlInstance instance, std::string const& backend)
        {
            mxlFabricsInstance fabrics = nullptr;
            if (auto const status = ::mxlFabricsCreateInstance(instance, fabricsInstanceOptions(backend).c_str(), &fabrics);
                status != MXL_STATUS_OK)
            {
                runtimeFailure("cannot create the fabrics instance with backend \"{}\": {}", backend, statusName(status));
            }
            return fabrics;
        }
    };

    // A target or initiator, created at construction and destroyed with its instance's Destroy call.
    template <typename Handle, mxlStatus (*Create)(mxlFabricsInstance, Handle*), mxlStatus (*Destroy)(mxlFabricsInstance, Handle)>
    class FabricsEndpoint : public OwnedHandle<mxlFabricsInstance, Handle, Destroy>
    {
    public:
        FabricsEndpoint() = default;

        // Throws ClientError(Failure) naming the status.
        explicit FabricsEndpoint(mxlFabricsInstance fabrics)
            : OwnedHandle<mxlFabricsInstance, Handle, Destroy>{fabrics, create(fabrics)}
        {
        }

    private:
        static Handle create(mxlFabricsInstance fabrics)
        {
            Handle handle = nullptr;
            if (auto const status = Create(fabrics, &handle); status != MXL_STATUS_OK)
            {
                runtimeFailure("cannot create a fabrics {}: {}", std::is_same_v<Handle, mxlFabricsTarget> ? "target" : "initiator",
                               statusName(status));
            }
            return handle;
        }
    };

    using FabricsTarget = FabricsEndpoint<mxlFabricsTarget, ::mxlFabricsCreateTarget, ::mxlFabricsDestroyTarget>;
    using FabricsInitiator = FabricsEndpoint<mxlFabricsInitiator, ::mxlFabricsCreateInitiator, ::mxlFabricsDestroyInitiator>;

    // Connection requests the target refused (allowInitiators) since it was created; 0 for none.
    [[nodiscard]] inline std::uint64_t refusedInitiators(FabricsTarget const* target) noexcept
    {
        mxlFabricsAdmissionCounters counters{};
        return target != nullptr && ::mxlFabricsTargetGetAdmissionCounters(target->get(), &counters) == MXL_STATUS_OK ? counters.refused
                                                                                                                      : 0;
    }

    // Connections of initiators that came up while another initiator was connected, over every setup of `target`; 0
    // without one.
    [[nodiscard]] inline std::uint64_t concurrentInitiators(FabricsTarget const* target) noexcept
    {
        mxlFabricsConnectionCounters counters{};
        counters.structSize = sizeof(counters);
        return target != nullptr && ::mxlFabricsTargetGetConnectionCounters(target->get(), &counters) == MXL_STATUS_OK
                   ? counters.joinedWhileConnected
                   : 0;
    }

    class OwnedTargetInfo : public OwnedHandle<std::nullptr_t, mxlFabricsTargetInfo, ::mxlFabricsFreeTargetInfo>
    {
    public:
        OwnedTargetInfo() = default;

        explicit OwnedTargetInfo(mxlFabricsTargetInfo info) noexcept
            : OwnedHandle{nullptr, info}
        {
        }
    };

    // A batch of an initiator (fabrics_batch.h); transfers in flight when it is freed go on without it.
    class FabricsBatch : public OwnedHandle<mxlFabricsInitiator, mxlFabricsBatch, ::mxlFabricsInitiatorFreeBatch>
    {
    public:
        // Holds no batch when the initiator refused to create one (`status` says why).
        FabricsBatch(mxlFabricsInitiator initiator, mxlStatus& status)
            : OwnedHandle{initiator, create(initiator, status)}
        {
        }

    private:
        static mxlFabricsBatch create(mxlFabricsInitiator initiator, mxlStatus& status)
        {
            mxlFabricsBatch batch = 0;
            status = ::mxlFabricsInitiatorCreateBatch(initiator, &batch);
            return batch;
        }
    };
}
