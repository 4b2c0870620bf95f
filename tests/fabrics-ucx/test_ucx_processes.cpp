// The UCX backend across processes: a target in fabrics-ucx-target, the initiator here, over tcp and shm. The target
// checks each write's bytes when its immediate arrives, then exits: the initiator must then see the peer gone.
#include "Process.hpp"
#include "Skip.hpp"
#include "UcxInitiator.hpp"

#include <doctest/doctest.h>

#include <map>
#include <optional>
#include <vector>

using namespace mxl::test::ucx;

namespace
{
    // Posts a write of two segments (a gathered write; one where there is one byte) until the queue takes it, polling
    // meanwhile; false after 30 s.
    bool writeGathered(Initiator& initiator, std::uint64_t context, std::uint32_t region, std::uint64_t offset, std::size_t sourceOffset,
                       std::size_t length, std::optional<std::uint32_t> immediate)
    {
        return initiator.pollUntil(
            [&] { return initiator.write(context, region, offset, sourceOffset, length, length > 1 ? 2 : 1, immediate); });
    }

    void transferAcrossProcesses(mxlFabricsProvider provider, char const* providerName)
    {
        MXL_SKIP_IF(unavailable());
        auto const* table = backend();
        constexpr std::uint32_t writes = 32;
        mxl::test::Process target{{MXL_FABRICS_UCX_TARGET, providerName, std::to_string(writes)}};
        auto const ticketLine = target.waitForLine("ticket ", std::chrono::seconds{30});
        REQUIRE(ticketLine);
        auto const ticket = decodeTicket(ticketLine->substr(ticketLine->find(' ') + 1));
        REQUIRE(ticket.keys.size() == planRegionCount);

        auto [source, offsets] = plannedSource(writes);
        Initiator initiator{*table, provider, std::move(source), 0};
        auto const regions = ticket.regions();
        initiator.connect(
            {7, {ticket.address.data(), ticket.address.size()}, ticket.format, regions.data(), static_cast<std::uint32_t>(regions.size())});

        // The probe: one byte without immediate, whose completion confirms the path.
        REQUIRE(writeGathered(initiator, 100, 0, 0, 0, 1, std::nullopt));
        REQUIRE(initiator.pollUntil([&] { return initiator.completions.size() == 1; }));
        CHECK(initiator.completions[0].status == MXL_STATUS_OK);

        for (std::uint32_t index = 0; index < writes; ++index)
        {
            auto const planned = plannedWrite(index);
            REQUIRE(writeGathered(initiator, index + 1, planned.region, planned.offset, offsets[index], planned.length, 1000 + index));
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
        auto const taken = initiator.postUntilEnded([&] { initiator.pollCompletions(); }, 2000, 256, 2, 9);
        REQUIRE(taken.has_value());
        auto const accepted = *taken;
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
