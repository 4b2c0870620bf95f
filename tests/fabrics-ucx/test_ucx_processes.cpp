// The UCX backend across processes: a target in fabrics-ucx-target, the initiator here, over tcp and shm. The target
// checks each write's bytes when its immediate arrives, then exits: the initiator must then see the peer gone.
#include "Process.hpp"
#include "Skip.hpp"
#include "UcxPair.hpp"

#include <doctest/doctest.h>

#include <map>
#include <thread>

using namespace mxl::test::ucx;

namespace
{
    class Initiator
    {
    public:
        Initiator(mxlFabricsBackend const& backendTable, mxlFabricsProvider provider, DecodedTicket const& ticket,
                  std::vector<std::uint8_t> const& sourceBytes)
            : table{backendTable}
            , source{sourceBytes}
        {
            auto const config = localInterface(provider);
            mxlFabricsBackendDomainInfo info{};
            requireOk(table, table.domain_open(&config, MXL_FABRICS_BACKEND_INITIATOR, &domain, &info), "domain_open");
            requireOk(table,
                      table.memory_register(domain, source.data(), source.size(), MXL_FABRICS_BACKEND_LOCAL_SOURCE, &memory, nullptr),
                      "memory_register");
            requireOk(table, table.initiator_open(domain, 0, &initiator), "initiator_open");
            auto const regions = ticket.regions();
            requireOk(table,
                      table.peer_open(initiator, 7, {ticket.address.data(), ticket.address.size()}, ticket.format, regions.data(),
                                      static_cast<std::uint32_t>(regions.size()), &peer),
                      "peer_open");
            requireOk(table, table.connection_open(peer, 1, &connection), "connection_open");
        }

        ~Initiator()
        {
            table.connection_close(connection);
            table.peer_close(peer);
            table.initiator_close(initiator);
            table.memory_deregister(memory);
            table.domain_close(domain);
        }

        Initiator(Initiator const&) = delete;
        Initiator& operator=(Initiator const&) = delete;

        // Posts a write of two segments (a gathered write): the call's status, and in `posted` whether it was taken.
        mxlStatus post(std::uint64_t context, std::uint32_t region, std::uint64_t offset, std::size_t sourceOffset, std::size_t length,
                       std::optional<std::uint32_t> immediate, int& posted)
        {
            auto const half = length / 2;
            mxlFabricsBackendSegment const segments[] = {{source.data() + sourceOffset, half, memory},
                                                         {source.data() + sourceOffset + half, length - half, memory}};
            auto const write = writeOf(length > 1 ? segments : segments + 1, length > 1 ? 2 : 1, region, offset, immediate);
            posted = 0;
            return table.connection_write(connection, &write, context, &posted);
        }

        // Posts until the queue takes it (polling meanwhile); false after 30 s.
        bool write(std::uint64_t context, std::uint32_t region, std::uint64_t offset, std::size_t sourceOffset, std::size_t length,
                   std::optional<std::uint32_t> immediate)
        {
            return pollUntil(
                [&]
                {
                    int posted = 0;
                    requireOk(table, post(context, region, offset, sourceOffset, length, immediate, posted), "connection_write");
                    return posted != 0;
                });
        }

        template <typename Done>
        bool pollUntil(Done&& done)
        {
            auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds{30};
            while (std::chrono::steady_clock::now() < deadline)
            {
                for (std::uint32_t count = 1; count != 0;)
                {
                    mxlFabricsBackendCompletion completion{};
                    requireOk(table, table.initiator_poll_completion(initiator, &completion, &count), "initiator_poll_completion");
                    if (count != 0)
                    {
                        completions.push_back(
                            {completion.context, completion.status, completion.reason != nullptr ? completion.reason : ""});
                    }
                }
                if (done())
                {
                    return true;
                }
                std::this_thread::sleep_for(std::chrono::microseconds{200});
            }
            return false;
        }

        char const* ended()
        {
            char const* reason = nullptr;
            requireOk(table, table.connection_check(connection, &reason), "connection_check");
            return reason;
        }

        mxlFabricsBackend const& table;
        std::vector<std::uint8_t> const& source;
        std::vector<Completion> completions;

    private:
        mxlFabricsBackendDomain domain = nullptr;
        mxlFabricsBackendMemory memory = nullptr;
        mxlFabricsBackendInitiator initiator = nullptr;
        mxlFabricsBackendPeer peer = nullptr;
        mxlFabricsBackendConnection connection = nullptr;
    };

    void transferAcrossProcesses(mxlFabricsProvider provider, char const* providerName)
    {
        auto const* table = backend();
        if (table == nullptr)
        {
            MXL_SKIP(whyMissing().c_str());
        }
        constexpr std::uint32_t writes = 32;
        mxl::test::Process target{{MXL_FABRICS_UCX_TARGET, providerName, std::to_string(writes)}};
        auto const ticketLine = target.waitForLine("ticket ", std::chrono::seconds{30});
        REQUIRE(ticketLine);
        auto const ticket = decodeTicket(ticketLine->substr(ticketLine->find(' ') + 1));
        REQUIRE(ticket.keys.size() == planRegionCount);

        std::vector<std::uint8_t> source;
        std::vector<std::size_t> offsets;
        for (std::uint32_t index = 0; index < writes; ++index)
        {
            offsets.push_back(source.size());
            auto const bytes = plannedBytes(index);
            source.insert(source.end(), bytes.begin(), bytes.end());
        }
        Initiator initiator{*table, provider, ticket, source};

        // The probe: one byte without immediate, whose completion confirms the path.
        REQUIRE(initiator.write(100, 0, 0, 0, 1, std::nullopt));
        REQUIRE(initiator.pollUntil([&] { return initiator.completions.size() == 1; }));
        CHECK(initiator.completions[0].status == MXL_STATUS_OK);

        for (std::uint32_t index = 0; index < writes; ++index)
        {
            auto const planned = plannedWrite(index);
            REQUIRE(initiator.write(index + 1, planned.region, planned.offset, offsets[index], planned.length, 1000 + index));
        }
        REQUIRE(initiator.pollUntil([&] { return initiator.completions.size() == writes + 1; }));
        std::map<std::uint64_t, int> seen;
        for (auto const& completion : initiator.completions)
        {
            INFO("context " << completion.context << ": " << completion.reason);
            CHECK(completion.status == MXL_STATUS_OK);
            ++seen[completion.context];
        }
        CHECK(seen.size() == writes + 1);

        // The target saw every immediate in order, each after its bytes.
        for (std::uint32_t index = 0; index < writes; ++index)
        {
            auto const line = target.readLine(std::chrono::seconds{30});
            REQUIRE(line);
            CHECK(line->substr(0, line->rfind(' ')) == "arrival " + std::to_string(1000 + index) + " ok");
        }
        CHECK(target.waitForLine("done", std::chrono::seconds{30}));
        CHECK(target.wait(std::chrono::seconds{30}) == 0);

        // The target process is gone: writes fail or the check says so, within seconds, and nothing hangs.
        std::uint64_t accepted = 0;
        auto const noticed = initiator.pollUntil(
            [&]
            {
                if (initiator.ended() != nullptr)
                {
                    return true;
                }
                int posted = 0;
                auto const status = initiator.post(2000 + accepted, 0, 0, 0, 256, 9, posted);
                CHECK_MESSAGE((status == MXL_STATUS_OK || status == MXL_ERR_INTERRUPTED), describe(*table, status));
                accepted += static_cast<std::uint64_t>(posted);
                return false;
            });
        REQUIRE(noticed);
        CHECK(std::string{initiator.ended()}.find("the target is gone") == 0);
        REQUIRE(initiator.pollUntil([&] { return initiator.completions.size() == writes + 1 + accepted; }));
        for (auto const& completion : initiator.completions)
        {
            if (completion.status != MXL_STATUS_OK)
            {
                CHECK(completion.status == MXL_ERR_INTERRUPTED);
                CHECK(!completion.reason.empty());
            }
        }
    }
}

TEST_CASE("ucx tcp across processes: bytes and immediates arrive in order, a target that exits is reported gone")
{
    transferAcrossProcesses(MXL_FABRICS_PROVIDER_TCP, "tcp");
}

TEST_CASE("ucx shm across processes: bytes and immediates arrive in order, a target that exits is reported gone")
{
    transferAcrossProcesses(MXL_FABRICS_PROVIDER_SHM, "shm");
}
