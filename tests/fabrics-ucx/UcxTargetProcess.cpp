// fabrics-ucx-target <tcp|shm> <writes>: a UCX target in its own process for test_ucx_processes.cpp. It prints its
// ticket ("ticket ..."), then one line per arrival ("arrival <immediate> ok|bad") after checking that write's bytes
// against the plan, then "done" once <writes> arrived, and exits: closing the target is the initiator's "peer gone".
#include "Checksum.hpp"
#include "UcxModule.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace
{
    using namespace mxl::test::ucx;

    int fail(char const* what, mxlFabricsBackend const& table, mxlStatus status)
    {
        std::fprintf(stderr, "fabrics-ucx-target: %s: %s\n", what, describe(table, status).c_str());
        return 1;
    }
}

int main(int argc, char** argv)
{
    if (argc != 3)
    {
        std::fprintf(stderr, "usage: fabrics-ucx-target <tcp|shm> <writes>\n");
        return 2;
    }
    if (auto const why = unavailable())
    {
        std::fprintf(stderr, "fabrics-ucx-target: %s\n", why->c_str());
        return 1;
    }
    auto const* table = backend();
    auto const tcp = std::strcmp(argv[1], "tcp") == 0;
    auto const writes = static_cast<std::uint32_t>(std::stoul(argv[2]));
    char host[256] = {};
    ::gethostname(host, sizeof(host) - 1);
    auto const config = interfaceOf(tcp ? MXL_FABRICS_PROVIDER_TCP : MXL_FABRICS_PROVIDER_SHM, tcp ? "127.0.0.1" : host);

    mxlFabricsBackendDomain domain = nullptr;
    mxlFabricsBackendDomainInfo info{};
    if (auto const status = table->domain_open(&config, MXL_FABRICS_BACKEND_TARGET, &domain, &info); status != MXL_STATUS_OK)
    {
        return fail("domain_open", *table, status);
    }
    std::vector<std::vector<std::uint8_t>> memory(planRegionCount, std::vector<std::uint8_t>(planRegionBytes));
    std::vector<mxlFabricsBackendSegment> segments;
    for (auto& region : memory)
    {
        segments.push_back({region.data(), region.size(), nullptr});
    }
    mxlFabricsBackendTarget target = nullptr;
    if (auto const status = table->target_open(domain, segments.data(), planRegionCount, 0, 7, &target); status != MXL_STATUS_OK)
    {
        return fail("target_open", *table, status);
    }
    mxlFabricsBackendBlob address{};
    std::uint32_t format = 0;
    mxlFabricsBackendRemoteRegion const* regions = nullptr;
    std::uint32_t regionCount = 0;
    table->target_address(target, &address, &format);
    table->target_regions(target, &regions, &regionCount);
    std::printf("ticket %s\n", encodeTicket(address, format, regions, regionCount).c_str());
    std::fflush(stdout);

    std::uint32_t arrived = 0;
    auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds{120};
    while (arrived < writes && std::chrono::steady_clock::now() < deadline)
    {
        int got = 0;
        std::uint32_t immediate = 0;
        if (auto const status = table->target_next_arrival(target, 100, nullptr, nullptr, &got, &immediate); status != MXL_STATUS_OK)
        {
            return fail("target_next_arrival", *table, status);
        }
        if (got == 0)
        {
            continue;
        }
        ++arrived;
        auto const index = immediate - 1000;
        auto const planned = plannedWrite(index);
        auto const expected = plannedBytes(index);
        auto const* landed = memory[planned.region].data() + planned.offset;
        auto const same = std::memcmp(landed, expected.data(), expected.size()) == 0;
        std::printf("arrival %u %s %016llx\n", immediate, same ? "ok" : "bad",
                    static_cast<unsigned long long>(mxl::test::fnv1a(landed, planned.length)));
        std::fflush(stdout);
    }
    table->target_close(target);
    table->domain_close(domain);
    std::printf("%s\n", arrived == writes ? "done" : "timed out");
    std::fflush(stdout);
    return arrived == writes ? 0 : 1;
}
