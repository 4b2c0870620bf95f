#include "AncBuffers.hpp"

#include "ElementFailure.hpp"
#include "MappedBuffer.hpp"
#include "Rfc8331Payload.hpp"

#include <media/AncFormatError.hpp>
#include <media/Rfc8331.hpp>
#include <media/St2038.hpp>

#include <mxl/dataformat.h>

#include <fmt/format.h>

namespace mxl::gst
{
    void checkRfc8331Payload(std::span<std::uint8_t const> bytes)
    {
        if (bytes.size() > MXL_DATA_FORMAT_GRAIN_SIZE)
        {
            throw formatFailure(fmt::format("a {} buffer of {} bytes does not fit a data grain: the payload takes at most {} bytes",
                                            rfc8331CapsName, bytes.size(), MXL_DATA_FORMAT_GRAIN_SIZE));
        }
        auto const declared = rfc8331PayloadBytes(bytes);
        if (!declared)
        {
            throw formatFailure(fmt::format("a {} buffer of {} bytes is shorter than the {}-byte RFC 8331 header (Length, ANC_Count, F)",
                                            rfc8331CapsName, bytes.size(), rfc8331HeaderBytes));
        }
        if (*declared != bytes.size())
        {
            throw formatFailure(fmt::format("a {} buffer of {} bytes is not one RFC 8331 payload: its Length field declares {} bytes "
                                            "({} header bytes + Length {})",
                                            rfc8331CapsName, bytes.size(), *declared, rfc8331HeaderBytes, *declared - rfc8331HeaderBytes));
        }
    }

    std::vector<std::uint8_t> rfc8331FromSt2038(std::span<std::uint8_t const> bytes)
    {
        auto const packets = media::readSt2038(bytes);
        if (packets.size() > 255)
        {
            throw media::AncFormatError{fmt::format("{} packets of ST 2038 are more than the 255 of one RFC 8331 payload", packets.size())};
        }
        auto payload = media::writeRfc8331(packets);
        if (payload.size() > MXL_DATA_FORMAT_GRAIN_SIZE)
        {
            throw media::AncFormatError{
                fmt::format("the {} ST 2038 packets take {} bytes as an RFC 8331 payload, more than a data grain's {}", packets.size(),
                            payload.size(), MXL_DATA_FORMAT_GRAIN_SIZE)};
        }
        return payload;
    }

    GstBuffer* st2038FromRfc8331(GstBuffer* grain)
    {
        std::vector<std::uint8_t> bytes;
        {
            MappedBuffer const map{grain};
            if (!map.mapped())
            {
                throw media::AncFormatError{fmt::format("a data grain of {} bytes cannot be read", gst_buffer_get_size(grain))};
            }
            bytes = media::writeSt2038(media::readRfc8331(map.bytes()).packets);
        }
        auto* const buffer = gst_buffer_new_memdup(bytes.data(), bytes.size());
        gst_buffer_copy_into(buffer, grain, GST_BUFFER_COPY_METADATA, 0, 0);
        return buffer;
    }
}
