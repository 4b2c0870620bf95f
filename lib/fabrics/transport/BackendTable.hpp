// The one table and entry of every backend module: a module writes its calls as the static members of a struct, with
// the names of fabrics_backend.h's fields, and its entry is entry<Calls>(). Calls::initialise, where a module has one,
// runs once, after the host was accepted. Handles are the module's C++ objects themselves (objectOf, handleOf).
#pragma once

#include "fabrics/transport/BackendCalls.hpp"
#include "fabrics/transport/fabrics_backend.h"

#include <cstdint>
#include <mutex>

namespace mxl::fabrics::backend
{
    template <typename Object, typename Handle>
    Object& objectOf(Handle handle) noexcept
    {
        return *reinterpret_cast<Object*>(handle);
    }

    template <typename Handle, typename Object>
    Handle handleOf(Object* object) noexcept
    {
        return reinterpret_cast<Handle>(object);
    }

    template <typename Calls>
    inline constexpr mxlFabricsBackend table{
        MXL_FABRICS_BACKEND_ABI_VERSION,
        sizeof(mxlFabricsBackend),
        Calls::name,
        lastErrorText,
        Calls::listInterfaces,
        Calls::domainOpen,
        Calls::domainClose,
        Calls::memoryRegister,
        Calls::memoryDeregister,
        Calls::targetOpen,
        Calls::targetClose,
        Calls::targetAddress,
        Calls::targetRegions,
        Calls::targetNextArrival,
        Calls::initiatorOpen,
        Calls::initiatorClose,
        Calls::initiatorPollCompletion,
        Calls::initiatorPollEvent,
        Calls::initiatorWait,
        Calls::peerOpen,
        Calls::peerClose,
        Calls::connectionOpen,
        Calls::connectionShutdown,
        Calls::connectionClose,
        Calls::connectionCheck,
        Calls::connectionWrite,
        Calls::domainOpenTransport,
        Calls::domainOpenDevice,
        Calls::memoryRegisterDevice,
        Calls::targetScreenConnections,
        Calls::connectionOpenWithData,
        Calls::targetWaitDescriptor,
        Calls::targetArm,
    };

    template <typename Calls>
    mxlStatus entry(std::uint32_t hostAbiVersion, mxlFabricsBackendHost const* host, mxlFabricsBackend const** out_backend)
    {
        auto const status = acceptHost(Calls::name, hostAbiVersion, host, table<Calls>, out_backend);
        if constexpr (requires { Calls::initialise(); })
        {
            if (status == MXL_STATUS_OK)
            {
                static std::once_flag initialised;
                std::call_once(initialised, Calls::initialise);
            }
        }
        return status;
    }
}
