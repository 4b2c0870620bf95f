#include "fabrics/core/DevicePayloads.hpp"

#include "common/Status.hpp"
#include "fabrics/protocol/DeviceStaging.hpp"
#include "fabrics/protocol/SampleGeometry.hpp"

namespace mxl::fabrics
{
    std::optional<DevicePayloads> devicePayloadsFromName(std::string_view name) noexcept
    {
        if (name == "auto")
        {
            return DevicePayloads::Auto;
        }
        if (name == "direct")
        {
            return DevicePayloads::Direct;
        }
        if (name == "staged")
        {
            return DevicePayloads::Staged;
        }
        return std::nullopt;
    }

    OpenedInterface openFlowDomain(Backend& backend, mxlFabricsInterfaceConfig const& config, Role role, Transport transport,
                                   DevicePayloads asked, FlowMemory const& memory)
    {
        if (carriesSamples(memory) || !DeviceStaging::needed(memory))
        {
            return {backend.openDomain(config, role, transport), nullptr, {}};
        }
        if (asked == DevicePayloads::Staged)
        {
            return {backend.openDomain(config, role, transport), nullptr, "asked (devicePayloads \"staged\")"};
        }
        try
        {
            OpenedInterface direct;
            direct.domain = backend.openDeviceDomain(config, role, transport);
            auto const ringBytes = memory.grainCount * memory.deviceGrainStrideBytes;
            direct.deviceRing = direct.domain->registerDeviceMemory(
                memory.devicePayloads, ringBytes, role == Role::Target ? MemoryAccess::RemoteWrite : MemoryAccess::LocalSource,
                memory.localDeviceIndex);
            return direct;
        }
        catch (Error const& e)
        {
            // Only UNSUPPORTED says that the interface cannot register this memory; anything else (a bad address, a
            // transport failing) fails the setup as it would for a host flow.
            if (e.status() != MXL_ERR_UNSUPPORTED_OPERATION)
            {
                throw;
            }
            if (asked == DevicePayloads::Direct)
            {
                fail(MXL_ERR_UNSUPPORTED_OPERATION, "devicePayloads \"direct\" was asked for the flow's payloads on CUDA device {}, but {}",
                     memory.localDeviceIndex, e.what());
            }
            return {backend.openDomain(config, role, transport), nullptr, e.what()};
        }
    }
}
