// A target and an initiator of the UCX backend in one process, each on its own domain, joined by a peer and a
// connection: what the core would open for one ticket, driven through the table alone.
#pragma once

#include "UcxModule.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mxl::test::ucx
{
    struct Completion
    {
        std::uint64_t context;
        mxlStatus status;
        std::string reason;
    };

    // Fails the running test case with the call's status and the backend's text.
    void requireOk(mxlFabricsBackend const& table, mxlStatus status, char const* call);

    // The write of `count` segments to region `region` at `remoteOffset`, announcing `immediate` where there is one.
    mxlFabricsBackendWrite writeOf(mxlFabricsBackendSegment const* segments, std::uint32_t count, std::uint32_t region,
                                   std::uint64_t remoteOffset, std::optional<std::uint32_t> immediate);

    // The interface config of `provider` on this host: 127.0.0.1 for tcp, the host name for shm.
    mxlFabricsInterfaceConfig localInterface(mxlFabricsProvider provider);

    class Pair
    {
    public:
        Pair(mxlFabricsBackend const& table, mxlFabricsProvider provider, std::vector<std::size_t> const& regionBytes,
             std::vector<std::uint8_t> source, std::size_t depth = 0);
        ~Pair();

        Pair(Pair const&) = delete;
        Pair& operator=(Pair const&) = delete;

        // Posts `length` source bytes from `sourceOffset`, split into `pieces` segments, with `flags` besides IMMEDIATE:
        // the call's status (its text in last_error) and in `posted` whether the write was taken (0: the queue is full).
        mxlStatus post(std::uint64_t context, std::uint32_t region, std::uint64_t remoteOffset, std::size_t sourceOffset,
                       std::size_t length, std::uint32_t pieces, std::optional<std::uint32_t> immediate, int& posted,
                       std::uint32_t flags = 0);
        // The same, requiring success; false when the queue is full.
        bool write(std::uint64_t context, std::uint32_t region, std::uint64_t remoteOffset, std::size_t sourceOffset, std::size_t length,
                   std::uint32_t pieces, std::optional<std::uint32_t> immediate, std::uint32_t flags = 0);

        // One pass: every arrival the target has, then every completion the initiator has.
        void pump();
        // Pumps until `done` holds or 30 s passed; says whether it held.
        template <typename Done>
        bool pumpUntil(Done&& done)
        {
            auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds{30};
            while (std::chrono::steady_clock::now() < deadline)
            {
                pump();
                if (done())
                {
                    return true;
                }
                pause();
            }
            return false;
        }

        // The one-byte write without immediate by which the core confirms a connectionless path.
        void probe();
        void closeTarget();
        // NULL while the peer may live.
        char const* ended();

        mxlFabricsBackend const& table;
        std::vector<std::vector<std::uint8_t>> regions;
        std::vector<std::uint8_t> source;
        std::vector<std::uint32_t> arrivals;
        std::vector<Completion> completions;
        mxlFabricsBackendPeer peer = nullptr;
        mxlFabricsBackendInitiator initiator = nullptr;
        // The domain info flags of the target's domain and of the initiator's.
        std::uint32_t targetDomainFlags = 0;
        std::uint32_t initiatorDomainFlags = 0;

        [[nodiscard]] mxlFabricsBackendTarget target() const noexcept
        {
            return _target;
        }

    private:
        mxlFabricsBackendDomain _targetDomain = nullptr;
        mxlFabricsBackendTarget _target = nullptr;
        mxlFabricsBackendDomain _initiatorDomain = nullptr;
        mxlFabricsBackendMemory _sourceMemory = nullptr;
        mxlFabricsBackendConnection _connection = nullptr;
        std::uint64_t _probes = 0;

        static void pause();
    };
}
