// One cudaMalloc allocation on the current device, freed with the object.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mxl::bench::device
{
    class DeviceBuffer
    {
    public:
        // Throws naming the size and the runtime's words when the allocation fails.
        explicit DeviceBuffer(std::size_t bytes);
        ~DeviceBuffer();

        DeviceBuffer(DeviceBuffer const&) = delete;
        DeviceBuffer& operator=(DeviceBuffer const&) = delete;

        [[nodiscard]] std::uint8_t* data() const noexcept
        {
            return _data;
        }

    private:
        std::uint8_t* _data = nullptr;
    };
}
