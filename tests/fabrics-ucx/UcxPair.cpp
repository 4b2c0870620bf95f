#include "UcxPair.hpp"

#include <doctest/doctest.h>

#include <unistd.h>

#include <thread>

namespace mxl::test::ucx
{
    void requireOk(mxlFabricsBackend const& table, mxlStatus status, char const* call)
    {
        if (status != MXL_STATUS_OK)
        {
            FAIL(call << ": " << describe(table, status));
        }
    }

    mxlFabricsBackendWrite writeOf(mxlFabricsBackendSegment const* segments, std::uint32_t count, std::uint32_t region,
                                   std::uint64_t remoteOffset, std::optional<std::uint32_t> immediate)
    {
        mxlFabricsBackendWrite write{};
        write.segments = segments;
        write.segmentCount = count;
        write.flags = immediate ? MXL_FABRICS_BACKEND_WRITE_IMMEDIATE : 0u;
        write.remoteRegion = region;
        write.immediate = immediate.value_or(0);
        write.remoteOffset = remoteOffset;
        return write;
    }

    mxlFabricsInterfaceConfig localInterface(mxlFabricsProvider provider)
    {
        static std::string const host = []
        {
            char name[256] = {};
            ::gethostname(name, sizeof(name) - 1);
            return std::string{name};
        }();
        return interfaceOf(provider, provider == MXL_FABRICS_PROVIDER_TCP ? "127.0.0.1" : host.c_str());
    }

    Pair::Pair(mxlFabricsBackend const& backendTable, mxlFabricsProvider provider, std::vector<std::size_t> const& regionBytes,
               std::vector<std::uint8_t> sourceBytes, std::size_t depth)
        : table{backendTable}
        , source{std::move(sourceBytes)}
    {
        auto const config = localInterface(provider);
        mxlFabricsBackendDomainInfo info{};
        requireOk(table, table.domain_open(&config, MXL_FABRICS_BACKEND_TARGET, &_targetDomain, &info), "domain_open (target)");
        CHECK((info.flags & MXL_FABRICS_BACKEND_CONNECTIONLESS) != 0);
        targetDomainFlags = info.flags;
        std::vector<mxlFabricsBackendSegment> segments;
        for (auto const bytes : regionBytes)
        {
            regions.emplace_back(bytes);
        }
        for (auto& region : regions)
        {
            segments.push_back({region.data(), region.size(), nullptr});
        }
        requireOk(table, table.target_open(_targetDomain, segments.data(), static_cast<std::uint32_t>(segments.size()), 0, 42, &_target),
                  "target_open");

        requireOk(table, table.domain_open(&config, MXL_FABRICS_BACKEND_INITIATOR, &_initiatorDomain, &info), "domain_open (initiator)");
        initiatorDomainFlags = info.flags;
        requireOk(table,
                  table.memory_register(_initiatorDomain, source.data(), source.size(), MXL_FABRICS_BACKEND_LOCAL_SOURCE, &_sourceMemory,
                                        nullptr),
                  "memory_register");
        requireOk(table, table.initiator_open(_initiatorDomain, depth, &initiator), "initiator_open");

        mxlFabricsBackendBlob address{};
        std::uint32_t format = 0;
        mxlFabricsBackendRemoteRegion const* published = nullptr;
        std::uint32_t count = 0;
        requireOk(table, table.target_address(_target, &address, &format), "target_address");
        requireOk(table, table.target_regions(_target, &published, &count), "target_regions");
        requireOk(table, table.peer_open(initiator, 42, address, format, published, count, &peer), "peer_open");
        requireOk(table, table.connection_open(peer, 1, &_connection), "connection_open");
    }

    Pair::~Pair()
    {
        if (_connection != nullptr)
        {
            table.connection_close(_connection);
        }
        if (peer != nullptr)
        {
            table.peer_close(peer);
        }
        if (initiator != nullptr)
        {
            table.initiator_close(initiator);
        }
        if (_sourceMemory != nullptr)
        {
            table.memory_deregister(_sourceMemory);
        }
        if (_initiatorDomain != nullptr)
        {
            table.domain_close(_initiatorDomain);
        }
        closeTarget();
    }

    void Pair::closeTarget()
    {
        if (_target != nullptr)
        {
            table.target_close(_target);
            _target = nullptr;
        }
        if (_targetDomain != nullptr)
        {
            table.domain_close(_targetDomain);
            _targetDomain = nullptr;
        }
    }

    mxlStatus Pair::post(std::uint64_t context, std::uint32_t region, std::uint64_t remoteOffset, std::size_t sourceOffset,
                         std::size_t length, std::uint32_t pieces, std::optional<std::uint32_t> immediate, int& posted, std::uint32_t flags)
    {
        std::vector<mxlFabricsBackendSegment> segments;
        auto const piece = length / pieces;
        for (std::uint32_t index = 0; index < pieces; ++index)
        {
            auto const start = index * piece;
            auto const size = index + 1 == pieces ? length - start : piece;
            segments.push_back({source.data() + sourceOffset + start, size, _sourceMemory});
        }
        auto write = writeOf(segments.data(), pieces, region, remoteOffset, immediate);
        write.flags |= flags;
        posted = 0;
        return table.connection_write(_connection, &write, context, &posted);
    }

    bool Pair::write(std::uint64_t context, std::uint32_t region, std::uint64_t remoteOffset, std::size_t sourceOffset, std::size_t length,
                     std::uint32_t pieces, std::optional<std::uint32_t> immediate, std::uint32_t flags)
    {
        int posted = 0;
        requireOk(table, post(context, region, remoteOffset, sourceOffset, length, pieces, immediate, posted, flags), "connection_write");
        return posted != 0;
    }

    void Pair::pump()
    {
        for (int arrived = 1; _target != nullptr && arrived != 0;)
        {
            std::uint32_t immediate = 0;
            requireOk(table, table.target_next_arrival(_target, 0, nullptr, nullptr, &arrived, &immediate), "target_next_arrival");
            if (arrived != 0)
            {
                arrivals.push_back(immediate);
            }
        }
        for (std::uint32_t count = 1; count != 0;)
        {
            mxlFabricsBackendCompletion completion{};
            requireOk(table, table.initiator_poll_completion(initiator, &completion, &count), "initiator_poll_completion");
            if (count != 0)
            {
                completions.push_back({completion.context, completion.status, completion.reason != nullptr ? completion.reason : ""});
            }
        }
    }

    void Pair::probe()
    {
        auto const context = 1'000'000 + ++_probes;
        REQUIRE(pumpUntil([&] { return write(context, 0, 0, 0, 1, 1, std::nullopt); }));
        REQUIRE(pumpUntil([&] { return !completions.empty() && completions.back().context == context; }));
        CHECK(completions.back().status == MXL_STATUS_OK);
        completions.clear();
    }

    char const* Pair::ended()
    {
        char const* reason = nullptr;
        requireOk(table, table.connection_check(_connection, &reason), "connection_check");
        return reason;
    }

    void Pair::pause()
    {
        std::this_thread::sleep_for(std::chrono::microseconds{200});
    }
}
