// How a device flow crosses a transport that registers host memory only: through a ring of pinned host slots shaped
// exactly like a host flow's grains (header, then every plane), one per ring slot. The initiator copies each grain's
// payload out of device memory into its slot before the writes read it; the target receives into its slots and copies
// each arrived payload into device memory before it commits the grain. The wire protocol is the host one, so either
// end may be a host flow or an MXL SDK peer. Copies run on a stream of their own, while the transport carries other
// grains (docs/device-flows.md, "Across the fabric").
#pragma once

#include "fabrics/protocol/GrainGeometry.hpp"
#include "fabrics/protocol/RegionSpans.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mxl::fabrics
{
    // For logs, the other way across: "payloads on CUDA device N registered directly with the transport (…)".
    [[nodiscard]] std::string describeDirect(FlowMemory const& memory);

    class DeviceStaging
    {
    public:
        // Allocates the pinned slots and a stream on the flow's device in this process, and copies each slot's grain header
        // in so that the slots read as the flow's grains. Fails naming the flow's device and the runtime's words.
        DeviceStaging(FlowMemory const& memory, GrainGeometry const& geometry);
        ~DeviceStaging();

        DeviceStaging(DeviceStaging const&) = delete;
        DeviceStaging& operator=(DeviceStaging const&) = delete;

        [[nodiscard]] static bool needed(FlowMemory const& memory) noexcept;

        // One span per ring slot, regionBytes long: what a transport registers instead of the header-only grain files.
        [[nodiscard]] RegionSpans spans() const;

        [[nodiscard]] std::uint8_t* slot(std::uint32_t index) const noexcept;

        // Copy the payload bytes of `ranges` (offsets within a grain region, as GrainGeometry::payloadRanges gives them)
        // of ring slot `index` between device memory and the staging slot, and wait until they are done.
        void toHost(std::uint32_t index, GrainRanges const& ranges);
        void toDevice(std::uint32_t index, GrainRanges const& ranges);

        // For logs: where the payloads are and how they are staged.
        [[nodiscard]] std::string describe() const;

    private:
        enum class Direction
        {
            ToHost,
            ToDevice
        };

        void copy(Direction direction, std::uint32_t index, GrainRanges const& ranges);
        [[nodiscard]] std::string runtimeWords() const;
        [[noreturn]] void failWith(std::string const& what, std::string const& words) const;
        [[noreturn]] void failWith(std::string const& what) const;

        mxlDeviceModule const& _module;
        int _device;
        std::uint8_t* _devicePayloads;
        std::size_t _deviceStride;
        std::uint32_t _slots;
        std::size_t _slotBytes;
        std::uint8_t* _host = nullptr;
        void* _stream = nullptr;
    };
}
