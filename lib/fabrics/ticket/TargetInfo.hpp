// The ticket a target publishes and an initiator adds: where to connect and which remote regions to write.
// Wire format (shared with the MXL SDK's lib/fabrics/ofi/src/internal/TargetInfo.cpp): compact JSON with sorted keys,
// 64-bit numbers as decimal strings, the raw fabric address in standard base64 and its numeric address format
// (TicketAddressFormat.hpp).
#pragma once

#include <mxl/fabrics.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mxl::fabrics
{
    // The backend every instance uses unless its options name another, and that of every ticket without a "backend"
    // key: the MXL SDK's (libfabric), so that its tickets stay byte for byte the SDK's.
    inline constexpr std::string_view defaultBackendName = "ofi";
    // How the ticket's target takes writes (core/Transport.hpp) unless its "transport" key says otherwise: RMA, the MXL
    // SDK's wire, so that RMA tickets keep the SDK's bytes. The other one is "msg".
    inline constexpr std::string_view defaultTransportName = "rma";

    struct RemoteRegion
    {
        RemoteRegion() = default;
        // A libfabric region: its key is the 64-bit rkey.
        RemoteRegion(std::uint64_t address, std::uint64_t length, std::uint64_t key) noexcept
            : addr{address}
            , len{length}
            , rkey{key}
        {
        }

        // A virtual address under FI_MR_VIRT_ADDR, otherwise 0 (offsets into the region).
        std::uint64_t addr = 0;
        std::uint64_t len = 0;
        std::uint64_t rkey = 0;
        // A backend's key that is not a 64-bit rkey (UCX's packed rkey), written as base64 "rkeyBlob" instead of "rkey".
        // Empty when `rkey` is the key, so that libfabric tickets keep the SDK's bytes.
        std::vector<std::uint8_t> keyBlob;

        bool operator==(RemoteRegion const&) const = default;
    };

    struct BounceBufferInfo
    {
        std::uint64_t entryCount = 0;
        // Includes the 16-byte entry header.
        std::uint64_t entrySize = 0;

        bool operator==(BounceBufferInfo const&) const = default;
    };

    struct TargetInfo
    {
        std::uint64_t id = 0;
        std::vector<std::uint8_t> fabricAddress;
        std::uint32_t addressFormat = 0;
        mxlFabricsProvider provider = MXL_FABRICS_PROVIDER_ANY;
        // Ring-slot order for grain flows; bounce-buffer entries for sample flows.
        std::vector<RemoteRegion> regions;
        std::optional<BounceBufferInfo> bounceBuffer;
        // Our extension: a random nonce per target incarnation (the SDK's parser ignores unknown keys). 0 = absent.
        std::uint64_t epoch = 0;
        // Our extension: the fabrics backend that made the ticket, written only when it is not defaultBackendName.
        std::string backend{defaultBackendName};
        // Our extension: "rma" or "msg", written only when it is not defaultTransportName. An SDK initiator would write
        // with RMA into a msg target: msg needs this library at both ends.
        std::string transport{defaultTransportName};
        // Our extension, "grainRegions": "split" (written only when true): a device flow's target registered its payloads
        // directly in device memory, so each ring slot has two regions, [header 0, payload 0, header 1, payload 1, …]:
        // the grain file's 8192-byte header and the grainSize payload. Absent: one region per ring slot, header then
        // payload, as the MXL SDK's. Only with grain regions (never with bounceBufferInfo), and an even count.
        bool splitGrainRegions = false;

        bool operator==(TargetInfo const&) const = default;

        // The target's ring slots: its regions, or half of them when split.
        [[nodiscard]] std::size_t grainSlotCount() const noexcept
        {
            return splitGrainRegions ? regions.size() / 2 : regions.size();
        }

        [[nodiscard]] std::string toJson() const;
        // Errors as the SDK's mxlFabricsTargetInfoFromString has them: syntax, not an object, bad addressFormat →
        // INVALID_ARG; missing keys, wrong types, bad numbers or base64, empty address → UNKNOWN.
        static TargetInfo fromJson(char const* text);

        // The fabric address for people: "127.0.0.1:24999", "[::1]:24999", an shm name, or base64 for other formats.
        [[nodiscard]] std::string describeAddress() const;
    };
}

struct mxlFabricsTargetInfo_t
{
    mxl::fabrics::TargetInfo info;
};
