// An initiator written on plain libfabric calls, with none of libmxl-fabrics' checks: it reaches a target from its
// ticket (tcp: a connection of its own; shm: an address-vector entry) and writes whatever a test tells it to, with
// whatever immediate data, as a broken or hostile peer would.
#pragma once

#include <mxl/fabrics.h>

#include "fabrics/backends/ofi/Fid.hpp"
#include "fabrics/ticket/TargetInfo.hpp"

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace mxl::test::fabrics
{
    class HostilePeer
    {
    public:
        // `drive` runs while the peer waits (connection, EAGAIN, completions): the test's target must progress meanwhile.
        HostilePeer(mxlFabricsTargetInfo ticket, std::function<void()> drive);
        ~HostilePeer();

        HostilePeer(HostilePeer const&) = delete;
        HostilePeer& operator=(HostilePeer const&) = delete;

        [[nodiscard]] mxl::fabrics::TargetInfo const& ticket() const noexcept
        {
            return _ticket;
        }

        // Writes `length` bytes (all `fill`) to `remoteAddress` with `key`, with `immediate` as remote CQ data when given.
        // Returns 0 when the write completed, the provider's negative error when it was refused or failed, or nullopt
        // when it did not complete within `timeout` (shm never completes a zero-byte write).
        std::optional<int> write(std::uint64_t remoteAddress, std::uint64_t key, std::size_t length, std::uint8_t fill,
                                 std::optional<std::uint32_t> immediate, std::chrono::milliseconds timeout = std::chrono::seconds{5});

        // A write of `length` bytes at `offset` into region `region` of the ticket (its address and key).
        std::optional<int> writeRegion(std::size_t region, std::uint64_t offset, std::size_t length, std::uint8_t fill,
                                       std::optional<std::uint32_t> immediate);
        // The same with the bytes given.
        std::optional<int> writeBytes(std::size_t region, std::uint64_t offset, std::vector<std::uint8_t> const& bytes,
                                      std::optional<std::uint32_t> immediate);

    private:
        mxl::fabrics::TargetInfo _ticket;
        // Posts what is in the first `length` bytes of the registered buffer.
        std::optional<int> post(std::uint64_t remoteAddress, std::uint64_t key, std::size_t length, std::optional<std::uint32_t> immediate,
                                std::chrono::milliseconds timeout);
        std::function<void()> _drive;
        fi_info* _info = nullptr;
        mxl::fabrics::Fid<fid_fabric> _fabric;
        mxl::fabrics::Fid<fid_domain> _domain;
        mxl::fabrics::Fid<fid_eq> _events;
        mxl::fabrics::Fid<fid_cq> _completions;
        mxl::fabrics::Fid<fid_av> _addresses;
        std::vector<std::uint8_t> _buffer;
        mxl::fabrics::Fid<fid_mr> _region;
        mxl::fabrics::Fid<fid_ep> _endpoint;
        fi_addr_t _target = FI_ADDR_UNSPEC;
        std::uint64_t _nextContext = 1;

        [[nodiscard]] bool connectionless() const noexcept;
        // The completion of the write posted with `context`: 0, a negative error, or nullopt after `deadline`.
        std::optional<int> awaitCompletion(std::uintptr_t context, std::chrono::steady_clock::time_point deadline);
    };
}
