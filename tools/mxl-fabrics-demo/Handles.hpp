// Ownership of the C API's handles, so that every exit path releases them in reverse order of creation (a fabrics
// target or initiator before the flow whose memory it registered, the flow before its instance). The handles here are
// created by the caller (the demo reports each failure itself); target infos are the tools' OwnedTargetInfo.
#pragma once

#include <FabricsHandles.hpp>

#include <mxl/fabrics.h>
#include <mxl/flow.h>

#include <utility>

namespace mxl::demo
{
    template <typename Owner, typename Handle, mxlStatus (*Release)(Owner, Handle)>
    class OwnedHandle
    {
    public:
        OwnedHandle() = default;

        OwnedHandle(Owner owner, Handle handle) noexcept
            : _owner{owner}
            , _handle{handle}
        {
        }

        ~OwnedHandle()
        {
            if (_handle != nullptr)
            {
                Release(_owner, _handle);
            }
        }

        OwnedHandle(OwnedHandle&& other) noexcept
            : _owner{other._owner}
            , _handle{std::exchange(other._handle, nullptr)}
        {
        }

        OwnedHandle& operator=(OwnedHandle&& other) noexcept
        {
            std::swap(_owner, other._owner);
            std::swap(_handle, other._handle);
            return *this;
        }

        OwnedHandle(OwnedHandle const&) = delete;
        OwnedHandle& operator=(OwnedHandle const&) = delete;

        [[nodiscard]] Handle get() const noexcept
        {
            return _handle;
        }

    private:
        Owner _owner{};
        Handle _handle = nullptr;
    };

    using FlowWriter = OwnedHandle<mxlInstance, mxlFlowWriter, ::mxlReleaseFlowWriter>;
    using FlowReader = OwnedHandle<mxlInstance, mxlFlowReader, ::mxlReleaseFlowReader>;
    using FabricsTarget = OwnedHandle<mxlFabricsInstance, mxlFabricsTarget, ::mxlFabricsDestroyTarget>;
    using FabricsInitiator = OwnedHandle<mxlFabricsInstance, mxlFabricsInitiator, ::mxlFabricsDestroyInitiator>;

    using TargetInfo = tools::OwnedTargetInfo;
}
