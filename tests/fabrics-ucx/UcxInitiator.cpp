#include "UcxInitiator.hpp"

#include <doctest/doctest.h>

#include <unistd.h>

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

    Initiator::Initiator(mxlFabricsBackend const& backendTable, mxlFabricsProvider provider, std::vector<std::uint8_t> sourceBytes,
                         std::size_t depth)
        : table{backendTable}
        , source{std::move(sourceBytes)}
    {
        auto const config = localInterface(provider);
        mxlFabricsBackendDomainInfo info{};
        requireOk(table, table.domain_open(&config, MXL_FABRICS_BACKEND_INITIATOR, &_initiatorDomain, &info), "domain_open (initiator)");
        initiatorDomainFlags = info.flags;
        requireOk(table,
                  table.memory_register(_initiatorDomain, source.data(), source.size(), MXL_FABRICS_BACKEND_LOCAL_SOURCE, &_sourceMemory,
                                        nullptr),
                  "memory_register");
        requireOk(table, table.initiator_open(_initiatorDomain, depth, &initiator), "initiator_open");
    }

    Initiator::~Initiator()
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
    }

    void Initiator::connect(TargetTicket const& ticket)
    {
        requireOk(table,
                  table.peer_open(initiator, ticket.targetId, ticket.address, ticket.format, ticket.regions, ticket.regionCount, &peer),
                  "peer_open");
        requireOk(table, table.connection_open(peer, 1, &_connection), "connection_open");
    }

    mxlStatus Initiator::post(std::uint64_t context, std::uint32_t region, std::uint64_t remoteOffset, std::size_t sourceOffset,
                              std::size_t length, std::uint32_t pieces, std::optional<std::uint32_t> immediate, int& posted,
                              std::uint32_t flags)
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

    bool Initiator::write(std::uint64_t context, std::uint32_t region, std::uint64_t remoteOffset, std::size_t sourceOffset,
                          std::size_t length, std::uint32_t pieces, std::optional<std::uint32_t> immediate, std::uint32_t flags)
    {
        int posted = 0;
        requireOk(table, post(context, region, remoteOffset, sourceOffset, length, pieces, immediate, posted, flags), "connection_write");
        return posted != 0;
    }

    void Initiator::pollCompletions()
    {
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

    char const* Initiator::ended()
    {
        char const* reason = nullptr;
        requireOk(table, table.connection_check(_connection, &reason), "connection_check");
        return reason;
    }

    std::optional<std::uint64_t> Initiator::postUntilEnded(std::function<void()> const& pass, std::uint64_t firstContext,
                                                           std::size_t length, std::uint32_t pieces, std::uint32_t immediate)
    {
        std::uint64_t accepted = 0;
        auto const noticed =
            passUntil(pass,
                      [&]
                      {
                          if (ended() != nullptr)
                          {
                              return true;
                          }
                          int posted = 0;
                          auto const status = post(firstContext + accepted, 0, 0, 0, length, pieces, immediate, posted);
                          // INTERRUPTED: the loss was seen during this pass's progress; the check above says so
                          // next.
                          CHECK_MESSAGE((status == MXL_STATUS_OK || status == MXL_ERR_INTERRUPTED), describe(table, status));
                          accepted += static_cast<std::uint64_t>(posted);
                          return false;
                      });
        if (!noticed)
        {
            return std::nullopt;
        }
        return accepted;
    }
}
