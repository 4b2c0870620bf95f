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

    // The three ways to open a domain, each the module's one Calls::openDomain(config, role, transport, deviceMemory, out,
    // info): domain_open asks for rma in host memory, as hosts before the transport choice did.
    template <typename Calls>
    struct DomainEntries
    {
        static mxlStatus open(mxlFabricsInterfaceConfig const* config, mxlFabricsBackendRole role, mxlFabricsBackendDomain* out,
                              mxlFabricsBackendDomainInfo* info)
        {
            return Calls::openDomain(config, role, MXL_FABRICS_BACKEND_TRANSPORT_RMA, false, out, info);
        }

        static mxlStatus openTransport(mxlFabricsInterfaceConfig const* config, mxlFabricsBackendRole role, std::uint32_t transport,
                                       mxlFabricsBackendDomain* out, mxlFabricsBackendDomainInfo* info)
        {
            return Calls::openDomain(config, role, transport, false, out, info);
        }

        static mxlStatus openDevice(mxlFabricsInterfaceConfig const* config, mxlFabricsBackendRole role, std::uint32_t transport,
                                    mxlFabricsBackendDomain* out, mxlFabricsBackendDomainInfo* info)
        {
            return Calls::openDomain(config, role, transport, true, out, info);
        }
    };

    // Named, so that two entries of one signature cannot be swapped unnoticed. A module whose targets have no wait
    // descriptor declares targetWaitDescriptor and targetArm as nullptr, which the host reads as absent.
    template <typename Calls>
    inline constexpr mxlFabricsBackend table{
        .abiVersion = MXL_FABRICS_BACKEND_ABI_VERSION,
        .structSize = sizeof(mxlFabricsBackend),
        .name = Calls::name,
        .last_error = lastErrorText,
        .list_interfaces = Calls::listInterfaces,
        .domain_open = DomainEntries<Calls>::open,
        .domain_close = Calls::domainClose,
        .memory_register = Calls::memoryRegister,
        .memory_deregister = Calls::memoryDeregister,
        .target_open = Calls::targetOpen,
        .target_close = Calls::targetClose,
        .target_address = Calls::targetAddress,
        .target_regions = Calls::targetRegions,
        .target_next_arrival = Calls::targetNextArrival,
        .initiator_open = Calls::initiatorOpen,
        .initiator_close = Calls::initiatorClose,
        .initiator_poll_completion = Calls::initiatorPollCompletion,
        .initiator_poll_event = Calls::initiatorPollEvent,
        .initiator_wait = Calls::initiatorWait,
        .peer_open = Calls::peerOpen,
        .peer_close = Calls::peerClose,
        .connection_open = Calls::connectionOpen,
        .connection_shutdown = Calls::connectionShutdown,
        .connection_close = Calls::connectionClose,
        .connection_check = Calls::connectionCheck,
        .connection_write = Calls::connectionWrite,
        .domain_open_transport = DomainEntries<Calls>::openTransport,
        .domain_open_device = DomainEntries<Calls>::openDevice,
        .memory_register_device = Calls::memoryRegisterDevice,
        .target_screen_connections = Calls::targetScreenConnections,
        .connection_open_with_data = Calls::connectionOpenWithData,
        .target_wait_descriptor = Calls::targetWaitDescriptor,
        .target_arm = Calls::targetArm,
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
