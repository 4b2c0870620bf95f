// A GstBuffer mapped for reading while this lives: unmapped on every way out of the scope, exceptions included.
#pragma once

#include <gst/gst.h>

#include <cstdint>
#include <span>

namespace mxl::gst
{
    class MappedBuffer
    {
    public:
        explicit MappedBuffer(GstBuffer* buffer)
            : _buffer{buffer}
            , _mapped{gst_buffer_map(buffer, &_map, GST_MAP_READ) != FALSE}
        {
        }

        ~MappedBuffer()
        {
            if (_mapped)
            {
                gst_buffer_unmap(_buffer, &_map);
            }
        }

        MappedBuffer(MappedBuffer const&) = delete;
        MappedBuffer& operator=(MappedBuffer const&) = delete;

        // False when the buffer's memory could not be mapped: bytes() is then empty.
        [[nodiscard]] bool mapped() const noexcept
        {
            return _mapped;
        }

        [[nodiscard]] std::span<std::uint8_t const> bytes() const noexcept
        {
            return _mapped ? std::span<std::uint8_t const>{_map.data, _map.size} : std::span<std::uint8_t const>{};
        }

    private:
        GstBuffer* _buffer;
        GstMapInfo _map{};
        bool _mapped;
    };
}
