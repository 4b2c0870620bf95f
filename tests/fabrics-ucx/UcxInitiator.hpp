// The initiator side of the UCX backend's table, on a domain of its own: its source bytes registered, one peer on a
// target's ticket and one connection to it, and the completions it reported. The pieces every driver of the table in
// these tests shares come with it.
#pragma once

#include "UcxModule.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <thread>
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

    // Runs `pass`, then asks `done`, until `done` holds or 30 s passed; says whether it held.
    template <typename Pass, typename Done>
    bool passUntil(Pass&& pass, Done&& done)
    {
        auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds{30};
        while (std::chrono::steady_clock::now() < deadline)
        {
            pass();
            if (done())
            {
                return true;
            }
            std::this_thread::sleep_for(std::chrono::microseconds{200});
        }
        return false;
    }

    // What an initiator is given of a target: the id that names it in texts, its address and its regions.
    struct TargetTicket
    {
        std::uint64_t targetId;
        mxlFabricsBackendBlob address;
        std::uint32_t format;
        mxlFabricsBackendRemoteRegion const* regions;
        std::uint32_t regionCount;
    };

    class Initiator
    {
    public:
        // Opens the domain, registers `sourceBytes` and opens the initiator with `depth` (0: the backend's default).
        Initiator(mxlFabricsBackend const& backendTable, mxlFabricsProvider provider, std::vector<std::uint8_t> sourceBytes,
                  std::size_t depth);
        ~Initiator();

        Initiator(Initiator const&) = delete;
        Initiator& operator=(Initiator const&) = delete;

        // Opens the peer on `ticket` and the connection to it.
        void connect(TargetTicket const& ticket);

        // Posts `length` source bytes from `sourceOffset`, split into `pieces` segments, with `flags` besides IMMEDIATE:
        // the call's status (its text in last_error) and in `posted` whether the write was taken (0: the queue is full).
        mxlStatus post(std::uint64_t context, std::uint32_t region, std::uint64_t remoteOffset, std::size_t sourceOffset,
                       std::size_t length, std::uint32_t pieces, std::optional<std::uint32_t> immediate, int& posted,
                       std::uint32_t flags = 0);
        // The same, requiring success; false when the queue is full.
        bool write(std::uint64_t context, std::uint32_t region, std::uint64_t remoteOffset, std::size_t sourceOffset, std::size_t length,
                   std::uint32_t pieces, std::optional<std::uint32_t> immediate, std::uint32_t flags = 0);

        // Every completion the initiator has, into `completions`.
        void pollCompletions();
        // Polls until `done` holds or 30 s passed; says whether it held.
        template <typename Done>
        bool pollUntil(Done&& done)
        {
            return passUntil([this] { pollCompletions(); }, done);
        }

        // NULL while the peer may live.
        char const* ended();

        // Posts writes of `length` source bytes in `pieces` announcing `immediate` (contexts from `firstContext` on), with
        // `pass` before each, until the connection says the peer is gone: how many were taken, nullopt when 30 s passed
        // first.
        std::optional<std::uint64_t> postUntilEnded(std::function<void()> const& pass, std::uint64_t firstContext, std::size_t length,
                                                    std::uint32_t pieces, std::uint32_t immediate);

        mxlFabricsBackend const& table;
        std::vector<std::uint8_t> source;
        std::vector<Completion> completions;
        mxlFabricsBackendPeer peer = nullptr;
        mxlFabricsBackendInitiator initiator = nullptr;
        // The domain info flags of the initiator's domain.
        std::uint32_t initiatorDomainFlags = 0;

    private:
        mxlFabricsBackendDomain _initiatorDomain = nullptr;
        mxlFabricsBackendMemory _sourceMemory = nullptr;
        mxlFabricsBackendConnection _connection = nullptr;
    };
}
