// The UCX backend as the tests reach it: its module dlopen'd by its build path and entered as the core does, plus the
// small pieces every test of the table needs (interface configs, statuses with their texts, the write plan).
#pragma once

#include "fabrics/transport/fabrics_backend.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mxl::test::ucx
{
    // The table, or null when the module is not built or cannot be loaded (then `unavailable()` says why).
    mxlFabricsBackend const* backend();
    std::optional<std::string> const& unavailable();
    // The entry point itself, for the ABI check.
    mxlFabricsBackendEntryFunction entry();

    mxlFabricsInterfaceConfig interfaceOf(mxlFabricsProvider provider, char const* node);

    // "status N: text" of a failed call, for test messages.
    std::string describe(mxlFabricsBackend const& table, mxlStatus status);

    // The write plan both ends of a transfer know: write `index` lands `length` bytes at `offset` of region `region`,
    // holding grain `index`'s pattern (GrainPattern.hpp), and announces immediate 1000 + index.
    struct PlannedWrite
    {
        std::uint32_t region;
        std::uint64_t offset;
        std::uint64_t length;
    };

    inline constexpr std::uint32_t planRegionCount = 4;
    inline constexpr std::uint64_t planRegionBytes = 256 * 1024;

    PlannedWrite plannedWrite(std::uint32_t index);
    std::vector<std::uint8_t> plannedBytes(std::uint32_t index);

    // The planned bytes of writes 0 to `writes` - 1 back to back (an initiator's source), and where each write starts.
    struct PlannedSource
    {
        std::vector<std::uint8_t> bytes;
        std::vector<std::size_t> offsets;
    };

    PlannedSource plannedSource(std::uint32_t writes);

    // The bytes of a ticket's address and regions as one text line (hex), for a target in another process.
    std::string encodeTicket(mxlFabricsBackendBlob address, std::uint32_t format, mxlFabricsBackendRemoteRegion const* regions,
                             std::uint32_t count);

    struct DecodedTicket
    {
        std::vector<std::uint8_t> address;
        std::uint32_t format = 0;
        std::vector<std::uint64_t> regionAddresses;
        std::vector<std::uint64_t> regionLengths;
        std::vector<std::vector<std::uint8_t>> keys;

        [[nodiscard]] std::vector<mxlFabricsBackendRemoteRegion> regions() const;
    };

    DecodedTicket decodeTicket(std::string const& line);
}
