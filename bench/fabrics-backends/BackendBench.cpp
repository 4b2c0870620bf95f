// mxl-fabrics-backend-bench [grains]: moves 1080p v210 grains (5,529,600 bytes) through each backend's table, target
// and initiator in this process on two domains, over tcp 127.0.0.1 and shm, with 1 and 4 grains in flight, and prints
// one row per backend, transport (rma; msg where the backend has it), provider and depth. A grain is one write (split at the domain's
// maxMessageBytes) whose last piece carries an immediate; it counts as moved once its immediate arrived and all its pieces completed. One
// thread drives both ends, so the figures compare the backends' tables, not the hosts' best throughput.
#include "fabrics/transport/fabrics_backend.h"

#include <fmt/format.h>

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace
{
    using Clock = std::chrono::steady_clock;

    constexpr std::size_t grainBytes = 5'529'600;
    constexpr std::uint32_t regionCount = 4;

    struct Failure : std::runtime_error
    {
        using std::runtime_error::runtime_error;
    };

    void check(mxlFabricsBackend const& table, mxlStatus status, char const* call)
    {
        if (status != MXL_STATUS_OK)
        {
            auto const* text = table.last_error();
            throw Failure{fmt::format("{}: {}: status {}: {}", table.name, call, static_cast<int>(status), text != nullptr ? text : "")};
        }
    }

    mxlFabricsBackend const* enter(mxlFabricsBackendEntryFunction entry)
    {
        mxlFabricsBackendHost const host{sizeof(mxlFabricsBackendHost), nullptr};
        mxlFabricsBackend const* table = nullptr;
        return entry(MXL_FABRICS_BACKEND_ABI_VERSION, &host, &table) == MXL_STATUS_OK ? table : nullptr;
    }

    // Loaded as the core loads a backend: by the module's path, entered through its one exported symbol.
    mxlFabricsBackend const* moduleTable(std::string const& path)
    {
        auto* module = path.empty() ? nullptr : ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        auto* entry = module != nullptr ? ::dlsym(module, MXL_FABRICS_BACKEND_ENTRY_SYMBOL) : nullptr;
        return entry != nullptr ? enter(reinterpret_cast<mxlFabricsBackendEntryFunction>(entry)) : nullptr;
    }

    struct Interface
    {
        mxlFabricsProvider provider;
        std::string targetNode;
        std::string initiatorNode;
    };

    mxlFabricsInterfaceConfig configOf(mxlFabricsProvider provider, std::string const& node)
    {
        mxlFabricsInterfaceConfig config{};
        config.provider = provider;
        config.caps.flags = MXL_FABRICS_IFACE_CAP_REMOTE_WRITE;
        config.address.node = node.empty() ? nullptr : node.c_str();
        return config;
    }

    // One target and one initiator of one backend, joined: what the core opens for one ticket.
    class Session
    {
    public:
        Session(mxlFabricsBackend const& table, Interface const& interface, std::uint32_t transport)
            : _table{table}
            , _regions(regionCount, std::vector<std::uint8_t>(grainBytes))
            , _source(grainBytes)
        {
            for (std::size_t i = 0; i < _source.size(); ++i)
            {
                _source[i] = static_cast<std::uint8_t>(i * 7 + (i >> 12));
            }
            auto const targetConfig = configOf(interface.provider, interface.targetNode);
            auto const initiatorConfig = configOf(interface.provider, interface.initiatorNode);
            check(_table, _table.domain_open_transport(&targetConfig, MXL_FABRICS_BACKEND_TARGET, transport, &_targetDomain, &_info),
                  "domain_open_transport");
            std::vector<mxlFabricsBackendSegment> segments;
            for (auto& region : _regions)
            {
                segments.push_back({region.data(), region.size(), nullptr});
            }
            check(_table, _table.target_open(_targetDomain, segments.data(), regionCount, 0, 1, &_target), "target_open");
            check(_table,
                  _table.domain_open_transport(&initiatorConfig, MXL_FABRICS_BACKEND_INITIATOR, transport, &_initiatorDomain, &_info),
                  "domain_open_transport");
            check(_table,
                  _table.memory_register(_initiatorDomain, _source.data(), _source.size(), MXL_FABRICS_BACKEND_LOCAL_SOURCE, &_memory,
                                         nullptr),
                  "memory_register");
            check(_table, _table.initiator_open(_initiatorDomain, 0, &_initiator), "initiator_open");
            mxlFabricsBackendBlob address{};
            std::uint32_t format = 0;
            mxlFabricsBackendRemoteRegion const* regions = nullptr;
            std::uint32_t count = 0;
            check(_table, _table.target_address(_target, &address, &format), "target_address");
            check(_table, _table.target_regions(_target, &regions, &count), "target_regions");
            check(_table, _table.peer_open(_initiator, 1, address, format, regions, count, &_peer), "peer_open");
            check(_table, _table.connection_open(_peer, 1, &_connection), "connection_open");
            connect();
        }

        ~Session()
        {
            _table.connection_close(_connection);
            _table.peer_close(_peer);
            _table.initiator_close(_initiator);
            _table.memory_deregister(_memory);
            _table.domain_close(_initiatorDomain);
            _table.target_close(_target);
            _table.domain_close(_targetDomain);
        }

        Session(Session const&) = delete;
        Session& operator=(Session const&) = delete;

        // Seconds to move `grains` grains with up to `depth` in flight.
        double run(std::uint32_t grains, std::uint32_t depth)
        {
            auto const pieceBytes = static_cast<std::size_t>(std::min<std::uint64_t>(_info.maxMessageBytes, grainBytes));
            auto const pieces = static_cast<std::uint32_t>((grainBytes + pieceBytes - 1) / pieceBytes);
            std::uint64_t posted = 0; // pieces
            std::uint64_t completed = 0;
            std::uint32_t arrived = 0;
            auto const start = Clock::now();
            auto const deadline = start + std::chrono::seconds{120};
            while (arrived < grains || completed < posted || posted < std::uint64_t{grains} * pieces)
            {
                auto const grainsPosted = static_cast<std::uint32_t>(posted / pieces);
                auto const inFlight = grainsPosted - std::min<std::uint32_t>(arrived, static_cast<std::uint32_t>(completed / pieces));
                if (posted < std::uint64_t{grains} * pieces && (posted % pieces != 0 || inFlight < depth) &&
                    post(posted, pieces, pieceBytes))
                {
                    ++posted;
                    continue;
                }
                arrived += drainArrivals();
                completed += drainCompletions();
                if (Clock::now() > deadline)
                {
                    throw Failure{fmt::format("{}: {} of {} grains arrived in 120 s", _table.name, arrived, grains)};
                }
            }
            auto const seconds = std::chrono::duration<double>(Clock::now() - start).count();
            if (std::memcmp(_regions[(grains - 1) % regionCount].data(), _source.data(), grainBytes) != 0)
            {
                throw Failure{fmt::format("{}: the last grain's bytes differ at the target", _table.name)};
            }
            return seconds;
        }

    private:
        mxlFabricsBackend const& _table;
        std::vector<std::vector<std::uint8_t>> _regions;
        std::vector<std::uint8_t> _source;
        mxlFabricsBackendDomainInfo _info{sizeof(mxlFabricsBackendDomainInfo), 0, 0, 0, 0, nullptr};
        mxlFabricsBackendDomain _targetDomain = nullptr;
        mxlFabricsBackendTarget _target = nullptr;
        mxlFabricsBackendDomain _initiatorDomain = nullptr;
        mxlFabricsBackendMemory _memory = nullptr;
        mxlFabricsBackendInitiator _initiator = nullptr;
        mxlFabricsBackendPeer _peer = nullptr;
        mxlFabricsBackendConnection _connection = nullptr;

        bool post(std::uint64_t piece, std::uint32_t pieces, std::size_t pieceBytes)
        {
            auto const grain = static_cast<std::uint32_t>(piece / pieces);
            auto const index = static_cast<std::uint32_t>(piece % pieces);
            auto const offset = index * pieceBytes;
            mxlFabricsBackendSegment const segment{_source.data() + offset, std::min(pieceBytes, grainBytes - offset), _memory};
            mxlFabricsBackendWrite write{};
            write.segments = &segment;
            write.segmentCount = 1;
            write.flags = index + 1 == pieces ? MXL_FABRICS_BACKEND_WRITE_IMMEDIATE : 0u;
            write.remoteRegion = grain % regionCount;
            write.immediate = grain;
            write.remoteOffset = offset;
            int accepted = 0;
            check(_table, _table.connection_write(_connection, &write, piece, &accepted), "connection_write");
            return accepted != 0;
        }

        std::uint32_t drainArrivals()
        {
            std::uint32_t count = 0;
            for (int arrived = 1; arrived != 0;)
            {
                std::uint32_t immediate = 0;
                check(_table, _table.target_next_arrival(_target, 0, nullptr, nullptr, &arrived, &immediate), "target_next_arrival");
                count += static_cast<std::uint32_t>(arrived);
            }
            return count;
        }

        std::uint32_t drainCompletions()
        {
            std::uint32_t count = 0;
            for (std::uint32_t polled = 1; polled != 0;)
            {
                mxlFabricsBackendCompletion completion{};
                check(_table, _table.initiator_poll_completion(_initiator, &completion, &polled), "initiator_poll_completion");
                if (polled != 0 && completion.status != MXL_STATUS_OK)
                {
                    throw Failure{fmt::format("{}: write {} failed: {}", _table.name, completion.context, completion.reason)};
                }
                count += polled;
            }
            return count;
        }

        // Connectionless: the probe write; otherwise the ESTABLISHED event, the target accepting meanwhile.
        void connect()
        {
            auto const deadline = Clock::now() + std::chrono::seconds{10};
            if ((_info.flags & MXL_FABRICS_BACKEND_CONNECTIONLESS) != 0)
            {
                mxlFabricsBackendSegment const segment{_source.data(), 1, _memory};
                mxlFabricsBackendWrite write{};
                write.segments = &segment;
                write.segmentCount = 1;
                int accepted = 0;
                while (accepted == 0 && Clock::now() < deadline)
                {
                    check(_table, _table.connection_write(_connection, &write, 0, &accepted), "connection_write (probe)");
                    drainArrivals();
                }
                while (drainCompletions() == 0 && Clock::now() < deadline)
                {
                    drainArrivals();
                }
                return;
            }
            for (;;)
            {
                if (Clock::now() > deadline)
                {
                    throw Failure{fmt::format("{}: not connected after 10 s", _table.name)};
                }
                drainArrivals();
                mxlFabricsBackendEvent event{};
                std::uint32_t count = 0;
                check(_table, _table.initiator_poll_event(_initiator, &event, &count), "initiator_poll_event");
                if (count != 0 && event.type == MXL_FABRICS_BACKEND_ESTABLISHED)
                {
                    return;
                }
                if (count != 0)
                {
                    throw Failure{fmt::format("{}: connecting failed: {}", _table.name, event.reason != nullptr ? event.reason : "")};
                }
            }
        }
    };
}

int main(int argc, char** argv)
{
    auto const grains = argc > 1 ? static_cast<std::uint32_t>(std::stoul(argv[1])) : 200u;
    char host[256] = {};
    ::gethostname(host, sizeof(host) - 1);
    auto const shmName = fmt::format("mxl-backend-bench-{}", ::getpid());

    struct Row
    {
        char const* backend;
        mxlFabricsBackend const* table;
        char const* transport;
        std::uint32_t transportValue;
        char const* provider;
        Interface interface;
    };
    auto const* ofi = moduleTable(MXL_BENCH_OFI_MODULE);
    auto const* ucx = moduleTable(MXL_BENCH_UCX_MODULE);
    auto constexpr rma = MXL_FABRICS_BACKEND_TRANSPORT_RMA;
    auto constexpr msg = MXL_FABRICS_BACKEND_TRANSPORT_MSG;
    std::vector<Row> const rows{
        {"ofi", ofi, "rma", rma, "tcp", {MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", "127.0.0.1"}},
        {"ofi", ofi, "msg", msg, "tcp", {MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", "127.0.0.1"}},
        {"ucx", ucx, "rma", rma, "tcp", {MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", "127.0.0.1"}},
        {"ofi", ofi, "rma", rma, "shm", {MXL_FABRICS_PROVIDER_SHM, shmName, ""}},
        {"ofi", ofi, "msg", msg, "shm", {MXL_FABRICS_PROVIDER_SHM, shmName, ""}},
        {"ucx", ucx, "rma", rma, "shm", {MXL_FABRICS_PROVIDER_SHM, host, host}},
    };

    fmt::print("{} grains of {} bytes (1080p v210) per row, one thread driving target and initiator\n\n", grains, grainBytes);
    fmt::print("| backend | transport | provider | in flight | grains/s | MB/s | µs per grain |\n|---|---|---|---|---|---|---|\n");
    auto failed = false;
    for (auto const& row : rows)
    {
        for (std::uint32_t const depth : {1u, 4u})
        {
            if (row.table == nullptr)
            {
                fmt::print("| {} | {} | {} | {} | not built | | |\n", row.backend, row.transport, row.provider, depth);
                continue;
            }
            try
            {
                Session session{*row.table, row.interface, row.transportValue};
                session.run(std::min(grains, 8u), depth);
                auto const seconds = session.run(grains, depth);
                fmt::print("| {} | {} | {} | {} | {:.0f} | {:.0f} | {:.0f} |\n", row.backend, row.transport, row.provider, depth,
                           grains / seconds, grains * double(grainBytes) / seconds / 1e6, seconds / grains * 1e6);
            }
            catch (Failure const& e)
            {
                fmt::print("| {} | {} | {} | {} | failed: {} | | |\n", row.backend, row.transport, row.provider, depth, e.what());
                failed = true;
            }
        }
    }
    return failed ? 1 : 0;
}
