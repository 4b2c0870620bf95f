// The core's objects over a backend's C table (fabrics_backend.h): each owns one handle and closes it once, turns a
// failed status into the exception the core expects (Interrupted, without a text to log, for a signal) and converts
// between the table's plain structs and the core's vocabulary.
#include "fabrics/transport/TableBackend.hpp"

#include "common/Status.hpp"
#include "fabrics/core/Interrupted.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <boost/container/small_vector.hpp>

namespace mxl::fabrics
{
    namespace
    {
        void checkStatus(mxlFabricsBackend const& table, mxlStatus status)
        {
            if (status == MXL_STATUS_OK)
            {
                return;
            }
            auto const* text = table.last_error();
            if (text == nullptr)
            {
                throw Interrupted{"a signal ended the wait"};
            }
            throw Error{status, text};
        }

        // A key of 8 bytes is a libfabric rkey and keeps the ticket's numeric "rkey"; any other size travels as bytes.
        RemoteRegion regionOf(mxlFabricsBackendRemoteRegion const& region)
        {
            RemoteRegion result;
            result.addr = region.address;
            result.len = region.length;
            if (region.key.size == sizeof(result.rkey))
            {
                std::memcpy(&result.rkey, region.key.bytes, sizeof(result.rkey));
            }
            else
            {
                result.keyBlob.assign(region.key.bytes, region.key.bytes + region.key.size);
            }
            return result;
        }

        mxlFabricsBackendBlob keyOf(RemoteRegion const& region) noexcept
        {
            if (region.keyBlob.empty())
            {
                return {reinterpret_cast<std::uint8_t const*>(&region.rkey), sizeof(region.rkey)};
            }
            return {region.keyBlob.data(), region.keyBlob.size()};
        }

        // What every object below owns: one handle of the table, closed through the table's `close` entry exactly once.
        template <typename Handle, void (*mxlFabricsBackend::*close)(Handle)>
        class TableHandle
        {
        public:
            TableHandle(TableHandle const&) = delete;
            TableHandle& operator=(TableHandle const&) = delete;

            [[nodiscard]] Handle handle() const noexcept
            {
                return _handle;
            }

        protected:
            TableHandle(mxlFabricsBackend const& table, Handle handle) noexcept
                : _table{table}
                , _handle{handle}
            {
            }

            ~TableHandle()
            {
                (_table.*close)(_handle);
            }

            mxlFabricsBackend const& _table;
            Handle _handle;
        };

        class BackendMemory final : public TransportMemory,
                                    private TableHandle<mxlFabricsBackendMemory, &mxlFabricsBackend::memory_deregister>
        {
        public:
            BackendMemory(mxlFabricsBackend const& table, mxlFabricsBackendMemory handle, void const* base, std::size_t length,
                          RemoteRegion remote) noexcept
                : TransportMemory{base, length}
                , TableHandle{table, handle}
                , _remote{remote}
            {
            }

            [[nodiscard]] RemoteRegion remote() const override
            {
                return _remote;
            }

            using TableHandle::handle;

        private:
            RemoteRegion _remote;
        };

        std::uint32_t transportOf(Transport transport) noexcept
        {
            switch (transport)
            {
            case Transport::Rma:
                return MXL_FABRICS_BACKEND_TRANSPORT_RMA;
            case Transport::Msg:
                return MXL_FABRICS_BACKEND_TRANSPORT_MSG;
            case Transport::Auto:
                break;
            }
            return MXL_FABRICS_BACKEND_TRANSPORT_AUTO;
        }

        // Whether a table is long enough to hold `entry`: a table of an older minor version ends before it.
        bool tableHas(mxlFabricsBackend const& table, std::size_t entryOffset) noexcept
        {
            return table.structSize >= entryOffset + sizeof(void*);
        }

        DomainInfo domainInfoOf(mxlFabricsBackend const& table, mxlFabricsBackendDomainInfo const& info) noexcept
        {
            DomainInfo result;
            result.connectionless = (info.flags & MXL_FABRICS_BACKEND_CONNECTIONLESS) != 0;
            result.requestData = !result.connectionless && tableHas(table, offsetof(mxlFabricsBackend, connection_open_with_data)) &&
                                 table.connection_open_with_data != nullptr;
            result.orderedWrites = (info.flags & MXL_FABRICS_BACKEND_ORDERED_WRITES) != 0;
            result.canWait = (info.flags & MXL_FABRICS_BACKEND_CAN_WAIT) != 0;
            result.maxMessageBytes = info.maxMessageBytes;
            result.maxGatherSegments = info.maxGatherSegments;
            result.transport = info.transport == MXL_FABRICS_BACKEND_TRANSPORT_MSG ? Transport::Msg : Transport::Rma;
            result.transportReason = info.transportReason != nullptr ? info.transportReason : "";
            return result;
        }

        class BackendDomain final : public TransportDomain, private TableHandle<mxlFabricsBackendDomain, &mxlFabricsBackend::domain_close>
        {
        public:
            // `device`: opened by domain_open_device, so memory_register_device takes its memory.
            BackendDomain(mxlFabricsBackend const& table, mxlFabricsBackendDomain handle, mxlFabricsBackendDomainInfo const& info,
                          bool device) noexcept
                : TransportDomain{domainInfoOf(table, info)}
                , TableHandle{table, handle}
                , _device{device}
            {
            }

            [[nodiscard]] std::unique_ptr<TransportMemory> registerMemory(void const* base, std::size_t length,
                                                                          MemoryAccess access) const override
            {
                return registered(base, length, access,
                                  [&](auto flags, auto* memory, auto* remote)
                                  { return _table.memory_register(_handle, base, length, flags, memory, remote); });
            }

            [[nodiscard]] std::unique_ptr<TransportMemory> registerDeviceMemory(void const* base, std::size_t length, MemoryAccess access,
                                                                                int cudaDevice) const override
            {
                if (!_device)
                {
                    fail(MXL_ERR_UNSUPPORTED_OPERATION,
                         "registering {} bytes of CUDA device {} memory at {}: the domain was not opened for device memory", length,
                         cudaDevice, base);
                }
                return registered(base, length, access,
                                  [&](auto flags, auto* memory, auto* remote)
                                  { return _table.memory_register_device(_handle, base, length, flags, cudaDevice, memory, remote); });
            }

            using TableHandle::handle;

        private:
            bool _device;

            // `call(flags, &memory, &remote)` is the table's memory_register or memory_register_device.
            template <typename Register>
            std::unique_ptr<TransportMemory> registered(void const* base, std::size_t length, MemoryAccess access,
                                                        Register const& call) const
            {
                auto const flags =
                    access == MemoryAccess::RemoteWrite ? MXL_FABRICS_BACKEND_REMOTE_WRITE : MXL_FABRICS_BACKEND_LOCAL_SOURCE;
                mxlFabricsBackendMemory memory = nullptr;
                mxlFabricsBackendRemoteRegion remote{};
                checkStatus(_table, call(flags, &memory, &remote));
                return std::make_unique<BackendMemory>(_table, memory, base, length, regionOf(remote));
            }
        };

        // The admission a backend may call until target_close returns: a base listed before the handle's, so that it is
        // destroyed after the target is closed.
        struct HeldAdmission
        {
            TargetTransport::Admission held;
        };

        class BackendTarget final : public TargetTransport,
                                    private HeldAdmission,
                                    private TableHandle<mxlFabricsBackendTarget, &mxlFabricsBackend::target_close>
        {
        public:
            BackendTarget(mxlFabricsBackend const& table, mxlFabricsBackendTarget handle) noexcept
                : TableHandle{table, handle}
            {
            }

            [[nodiscard]] std::vector<std::uint8_t> address() const override
            {
                mxlFabricsBackendBlob address{};
                std::uint32_t format = 0;
                checkStatus(_table, _table.target_address(_handle, &address, &format));
                return {address.bytes, address.bytes + address.size};
            }

            [[nodiscard]] std::uint32_t addressFormat() const noexcept override
            {
                mxlFabricsBackendBlob address{};
                std::uint32_t format = 0;
                static_cast<void>(_table.target_address(_handle, &address, &format));
                return format;
            }

            [[nodiscard]] std::vector<RemoteRegion> regions() const override
            {
                mxlFabricsBackendRemoteRegion const* regions = nullptr;
                std::uint32_t count = 0;
                checkStatus(_table, _table.target_regions(_handle, &regions, &count));
                std::vector<RemoteRegion> result;
                result.reserve(count);
                for (std::uint32_t index = 0; index < count; ++index)
                {
                    result.push_back(regionOf(regions[index]));
                }
                return result;
            }

            std::optional<std::uint32_t> nextArrival(std::chrono::milliseconds timeout) override
            {
                int arrived = 0;
                std::uint32_t immediate = 0;
                checkStatus(_table, _table.target_next_arrival(_handle, static_cast<std::uint32_t>(timeout.count()),
                                                               &BackendTarget::observe, this, &arrived, &immediate));
                return arrived != 0 ? std::optional{immediate} : std::nullopt;
            }

            void screenConnections(Admission admission) override
            {
                if (!tableHas(_table, offsetof(mxlFabricsBackend, target_screen_connections)) ||
                    _table.target_screen_connections == nullptr)
                {
                    fail(MXL_ERR_UNSUPPORTED_OPERATION,
                         "the {} backend implements backend ABI {}.{}: its targets admit every connection request (screening them "
                         "takes 1.4)",
                         _table.name, _table.abiVersion >> 16, _table.abiVersion & 0xffffu);
                }
                held = std::move(admission);
                checkStatus(_table, _table.target_screen_connections(_handle, held ? &BackendTarget::admit : nullptr, this));
            }

            [[nodiscard]] int waitDescriptor() const noexcept override
            {
                int descriptor = -1;
                if (!tableHas(_table, offsetof(mxlFabricsBackend, target_arm)) || _table.target_wait_descriptor == nullptr ||
                    _table.target_arm == nullptr || _table.target_wait_descriptor(_handle, &descriptor) != MXL_STATUS_OK)
                {
                    return -1;
                }
                return descriptor;
            }

            [[nodiscard]] bool arm() override
            {
                int armed = 0;
                checkStatus(_table, _table.target_arm(_handle, &armed));
                return armed != 0;
            }

        private:
            static int admit(void* user, mxlFabricsBackendConnectionRequest const* request) noexcept
            {
                try
                {
                    return static_cast<BackendTarget*>(user)->held({{request->peerAddress.bytes, request->peerAddress.size},
                                                                    {request->privateData.bytes, request->privateData.size}})
                               ? 1
                               : 0;
                }
                catch (...)
                {
                    // A request that could not be judged is not admitted.
                    return 0;
                }
            }

            static void observe(void* user, std::uint64_t connectionId, int connected, char const* reason)
            {
                static_cast<BackendTarget*>(user)->reportConnection({connectionId, connected != 0, reason != nullptr ? reason : ""});
            }
        };

        class BackendConnection final : public TransportConnection,
                                        private TableHandle<mxlFabricsBackendConnection, &mxlFabricsBackend::connection_close>
        {
        public:
            BackendConnection(mxlFabricsBackend const& table, mxlFabricsBackendConnection handle) noexcept
                : TableHandle{table, handle}
            {
            }

            bool write(RemoteWrite const& write, std::uint64_t context) override
            {
                boost::container::small_vector<mxlFabricsBackendSegment, 4> segments;
                for (auto const& segment : write.segments)
                {
                    segments.push_back({segment.base, segment.length, static_cast<BackendMemory const*>(segment.memory)->handle()});
                }
                mxlFabricsBackendWrite converted{};
                converted.segments = segments.data();
                converted.segmentCount = static_cast<std::uint32_t>(segments.size());
                converted.flags = (write.immediate ? MXL_FABRICS_BACKEND_WRITE_IMMEDIATE : 0u) |
                                  (write.completesWhenRead ? MXL_FABRICS_BACKEND_WRITE_COMPLETE_WHEN_READ : 0u);
                converted.remoteRegion = write.remoteRegion;
                converted.immediate = write.immediate.value_or(0);
                converted.remoteOffset = write.remoteOffset;
                int posted = 0;
                checkStatus(_table, _table.connection_write(_handle, &converted, context, &posted));
                return posted != 0;
            }

            [[nodiscard]] std::optional<std::string> check() override
            {
                char const* ended = nullptr;
                checkStatus(_table, _table.connection_check(_handle, &ended));
                return ended != nullptr ? std::optional<std::string>{ended} : std::nullopt;
            }

            void disconnect() noexcept override
            {
                _table.connection_shutdown(_handle);
            }
        };

        class BackendPeer final : public TransportPeer, private TableHandle<mxlFabricsBackendPeer, &mxlFabricsBackend::peer_close>
        {
        public:
            BackendPeer(mxlFabricsBackend const& table, mxlFabricsBackendPeer handle) noexcept
                : TableHandle{table, handle}
            {
            }

            [[nodiscard]] std::unique_ptr<TransportConnection> connect(std::uint64_t token,
                                                                       std::span<std::uint8_t const> requestData) override
            {
                mxlFabricsBackendConnection connection = nullptr;
                if (requestData.empty())
                {
                    checkStatus(_table, _table.connection_open(_handle, token, &connection));
                }
                else if (!tableHas(_table, offsetof(mxlFabricsBackend, connection_open_with_data)) ||
                         _table.connection_open_with_data == nullptr)
                {
                    fail(MXL_ERR_UNSUPPORTED_OPERATION,
                         "the {} backend implements backend ABI {}.{}: its connection requests carry no proof of the ticket key (that "
                         "takes 1.4)",
                         _table.name, _table.abiVersion >> 16, _table.abiVersion & 0xffffu);
                }
                else
                {
                    checkStatus(_table,
                                _table.connection_open_with_data(_handle, token, {requestData.data(), requestData.size()}, &connection));
                }
                return std::make_unique<BackendConnection>(_table, connection);
            }
        };

        ConnectionEvent::Type eventTypeOf(std::uint32_t type) noexcept
        {
            switch (type)
            {
            case MXL_FABRICS_BACKEND_ESTABLISHED:
                return ConnectionEvent::Type::Established;
            case MXL_FABRICS_BACKEND_CLOSED_BY_PEER:
                return ConnectionEvent::Type::ClosedByPeer;
            default:
                return ConnectionEvent::Type::Failed;
            }
        }

        class BackendInitiator final : public InitiatorTransport,
                                       private TableHandle<mxlFabricsBackendInitiator, &mxlFabricsBackend::initiator_close>
        {
        public:
            BackendInitiator(mxlFabricsBackend const& table, mxlFabricsBackendInitiator handle) noexcept
                : TableHandle{table, handle}
            {
            }

            [[nodiscard]] std::unique_ptr<TransportPeer> peer(TargetInfo const& ticket) override
            {
                // The keys' bytes only need to live during peer_open: the backend copies the regions.
                std::vector<mxlFabricsBackendRemoteRegion> regions;
                regions.reserve(ticket.regions.size());
                for (auto const& region : ticket.regions)
                {
                    regions.push_back({region.addr, region.len, keyOf(region)});
                }
                mxlFabricsBackendPeer peer = nullptr;
                checkStatus(_table,
                            _table.peer_open(_handle, ticket.id, {ticket.fabricAddress.data(), ticket.fabricAddress.size()},
                                             ticket.addressFormat, regions.data(), static_cast<std::uint32_t>(regions.size()), &peer));
                return std::make_unique<BackendPeer>(_table, peer);
            }

            std::optional<WriteCompletion> pollCompletion() override
            {
                auto const completion = pollOne(&mxlFabricsBackend::initiator_poll_completion);
                if (!completion)
                {
                    return std::nullopt;
                }
                return WriteCompletion{completion->context, completion->status, completion->reason != nullptr ? completion->reason : ""};
            }

            std::optional<ConnectionEvent> pollEvent() override
            {
                auto const event = pollOne(&mxlFabricsBackend::initiator_poll_event);
                if (!event)
                {
                    return std::nullopt;
                }
                return ConnectionEvent{event->context, eventTypeOf(event->type), event->reason != nullptr ? event->reason : ""};
            }

            bool wait(std::chrono::milliseconds timeout, bool connecting) override
            {
                int completion = 0;
                checkStatus(_table, _table.initiator_wait(_handle, static_cast<std::uint32_t>(timeout.count()),
                                                          connecting ? MXL_FABRICS_BACKEND_WAIT_CONNECTING : 0u, &completion));
                return completion != 0;
            }

        private:
            // `poll` is initiator_poll_completion or initiator_poll_event, which hand out one entry at most.
            template <typename Entry>
            std::optional<Entry> pollOne(mxlStatus (*mxlFabricsBackend::*poll)(mxlFabricsBackendInitiator, Entry*, std::uint32_t*)) const
            {
                Entry entry{};
                std::uint32_t count = 0;
                checkStatus(_table, (_table.*poll)(_handle, &entry, &count));
                return count != 0 ? std::optional{entry} : std::nullopt;
            }
        };

        class TableBackend final : public Backend
        {
        public:
            TableBackend(mxlFabricsBackend const& table, BackendIdentity identity)
                : _table{table}
                , _identity{std::move(identity)}
            {
            }

            [[nodiscard]] BackendIdentity const& identity() const noexcept override
            {
                return _identity;
            }

            void forEachInterface(mxlFabricsInterfaceConfig const* query,
                                  std::function<void(mxlFabricsInterfaceConfig const&)> const& emit) override
            {
                checkStatus(_table,
                            _table.list_interfaces(query, &TableBackend::emitOne, const_cast<void*>(static_cast<void const*>(&emit))));
            }

            [[nodiscard]] std::unique_ptr<TransportDomain> openDomain(mxlFabricsInterfaceConfig const& config, Role role,
                                                                      Transport asked) override
            {
                mxlFabricsBackendDomain domain = nullptr;
                mxlFabricsBackendDomainInfo info{};
                info.structSize = sizeof(info);
                auto const backendRole = role == Role::Target ? MXL_FABRICS_BACKEND_TARGET : MXL_FABRICS_BACKEND_INITIATOR;
                if (tableHas(_table, offsetof(mxlFabricsBackend, domain_open_transport)) && _table.domain_open_transport != nullptr)
                {
                    checkStatus(_table, _table.domain_open_transport(&config, backendRole, transportOf(asked), &domain, &info));
                }
                else
                {
                    if (asked == Transport::Msg)
                    {
                        fail(MXL_ERR_INVALID_ARG, "transport msg was asked for, but fabrics backend {} (ABI {}.{}) carries rma only",
                             _identity.name, _identity.abiVersion >> 16, _identity.abiVersion & 0xffffu);
                    }
                    checkStatus(_table, _table.domain_open(&config, backendRole, &domain, &info));
                    info.transport = MXL_FABRICS_BACKEND_TRANSPORT_RMA;
                    info.transportReason = asked == Transport::Rma ? "asked" : "the backend carries rma only";
                }
                return std::make_unique<BackendDomain>(_table, domain, info, false);
            }

            [[nodiscard]] std::unique_ptr<TransportDomain> openDeviceDomain(mxlFabricsInterfaceConfig const& config, Role role,
                                                                            Transport asked) override
            {
                // Both entries came with 1.3: a backend of 1.2 registers host memory only.
                if (!tableHas(_table, offsetof(mxlFabricsBackend, memory_register_device)) || _table.domain_open_device == nullptr ||
                    _table.memory_register_device == nullptr)
                {
                    fail(MXL_ERR_UNSUPPORTED_OPERATION,
                         "fabrics backend {} (ABI {}.{}) registers no device memory: that needs backend ABI 1.3 (memory_register_device)",
                         _identity.name, _identity.abiVersion >> 16, _identity.abiVersion & 0xffffu);
                }
                mxlFabricsBackendDomain domain = nullptr;
                mxlFabricsBackendDomainInfo info{};
                info.structSize = sizeof(info);
                auto const backendRole = role == Role::Target ? MXL_FABRICS_BACKEND_TARGET : MXL_FABRICS_BACKEND_INITIATOR;
                checkStatus(_table, _table.domain_open_device(&config, backendRole, transportOf(asked), &domain, &info));
                return std::make_unique<BackendDomain>(_table, domain, info, true);
            }

            [[nodiscard]] std::unique_ptr<TargetTransport> openTarget(TransportDomain const& domain, RegionSpans const& regions,
                                                                      std::size_t cqDepth, std::uint64_t targetId) override
            {
                std::vector<mxlFabricsBackendSegment> segments;
                segments.reserve(regions.size());
                for (auto const& region : regions)
                {
                    segments.push_back({region.data(), region.size(), nullptr});
                }
                mxlFabricsBackendTarget target = nullptr;
                checkStatus(_table, _table.target_open(static_cast<BackendDomain const&>(domain).handle(), segments.data(),
                                                       static_cast<std::uint32_t>(segments.size()), cqDepth, targetId, &target));
                return std::make_unique<BackendTarget>(_table, target);
            }

            [[nodiscard]] std::unique_ptr<InitiatorTransport> openInitiator(TransportDomain const& domain, std::size_t cqDepth) override
            {
                mxlFabricsBackendInitiator initiator = nullptr;
                checkStatus(_table, _table.initiator_open(static_cast<BackendDomain const&>(domain).handle(), cqDepth, &initiator));
                return std::make_unique<BackendInitiator>(_table, initiator);
            }

        private:
            mxlFabricsBackend const& _table;
            BackendIdentity _identity;

            static void emitOne(void* user, mxlFabricsInterfaceConfig const* entry)
            {
                (*static_cast<std::function<void(mxlFabricsInterfaceConfig const&)> const*>(user))(*entry);
            }
        };
    }

    std::unique_ptr<Backend> tableBackend(mxlFabricsBackend const& table, BackendIdentity identity)
    {
        return std::make_unique<TableBackend>(table, std::move(identity));
    }
}
