// The libfabric backend behind the C table of transport/fabrics_backend.h (its table and entry: transport/BackendTable):
// each call runs the classes of this folder and turns what they throw into a status and this thread's last error text.
#include "common/Status.hpp"
#include "fabrics/backends/ofi/OfiDomain.hpp"
#include "fabrics/backends/ofi/OfiInitialise.hpp"
#include "fabrics/backends/ofi/OfiInitiator.hpp"
#include "fabrics/backends/ofi/OfiInterfaces.hpp"
#include "fabrics/backends/ofi/OfiMemory.hpp"
#include "fabrics/backends/ofi/OfiTarget.hpp"
#include "fabrics/transport/BackendTable.hpp"
#include "fabrics/transport/fabrics_backend.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

namespace mxl::fabrics
{
    using backend::handleOf;
    using backend::lastErrorText;
    using backend::objectOf;
    using backend::run;

    namespace
    {
        struct OfiCalls
        {
            static constexpr char const* name = "ofi";

            static void initialise()
            {
                initialiseOfi();
            }

            // Why a peer ended, as connection_check last said on this thread.
            static inline thread_local std::string endedReason;

            static std::uint64_t keyOf(mxlFabricsBackendBlob key) noexcept
            {
                std::uint64_t value = 0;
                std::memcpy(&value, key.bytes, std::min(key.size, sizeof(value)));
                return value;
            }

            // What the C side holds for each handle.
            struct Target
            {
                std::unique_ptr<TargetTransport> transport;
                std::vector<std::uint8_t> address;
                std::vector<RemoteRegion> regions;
                std::vector<mxlFabricsBackendRemoteRegion> published;
                // The observer of the target_next_arrival call under way, null outside one. The transport's own observer,
                // installed once, hands changes to it: making a std::function at every call cost each grain's read.
                mxlFabricsBackendConnectionObserver observer = nullptr;
                void* observerUser = nullptr;

                void hearConnections()
                {
                    transport->observeConnections(
                        [this](ConnectionChange const& change)
                        {
                            if (observer != nullptr)
                            {
                                observer(observerUser, change.connectionId, change.connected ? 1 : 0,
                                         change.connected ? nullptr : change.reason.c_str());
                            }
                        });
                }
            };

            struct Initiator
            {
                // Its domain's: the initiator takes only tickets of its own provider.
                mxlFabricsProvider provider;
                std::unique_ptr<InitiatorTransport> transport;
                // What the last polls handed out: their reasons live until the next poll.
                WriteCompletion completion;
                ConnectionEvent event;
            };

            static mxlStatus listInterfaces(mxlFabricsInterfaceConfig const* query, void (*emit)(void*, mxlFabricsInterfaceConfig const*),
                                            void* user)
            {
                return run([&] { forEachOfiInterface(query, [&](mxlFabricsInterfaceConfig const& entry) { emit(user, &entry); }); });
            }

            static Transport transportOf(std::uint32_t transport)
            {
                switch (transport)
                {
                case MXL_FABRICS_BACKEND_TRANSPORT_AUTO:
                    return Transport::Auto;
                case MXL_FABRICS_BACKEND_TRANSPORT_RMA:
                    return Transport::Rma;
                case MXL_FABRICS_BACKEND_TRANSPORT_MSG:
                    return Transport::Msg;
                default:
                    fail(MXL_ERR_INVALID_ARG, "transport {} is none of auto (0), rma (1) or msg (2)", transport);
                }
            }

            static mxlStatus openDomain(mxlFabricsInterfaceConfig const* config, mxlFabricsBackendRole role, std::uint32_t transport,
                                        bool deviceMemory, mxlFabricsBackendDomain* out, mxlFabricsBackendDomainInfo* info)
            {
                return run(
                    [&]
                    {
                        auto opened = openOfiDomain(*config, role == MXL_FABRICS_BACKEND_TARGET ? Role::Target : Role::Initiator,
                                                    transportOf(transport), deviceMemory);
                        auto const& reported = opened->reported;
                        *info = {};
                        info->structSize = sizeof(*info);
                        info->flags = (reported.connectionless ? MXL_FABRICS_BACKEND_CONNECTIONLESS : 0u) |
                                      (reported.orderedWrites ? MXL_FABRICS_BACKEND_ORDERED_WRITES : 0u) |
                                      (reported.canWait ? MXL_FABRICS_BACKEND_CAN_WAIT : 0u);
                        info->maxMessageBytes = reported.maxMessageBytes;
                        info->maxGatherSegments = static_cast<std::uint32_t>(reported.maxGatherSegments);
                        info->transport =
                            reported.transport == Transport::Msg ? MXL_FABRICS_BACKEND_TRANSPORT_MSG : MXL_FABRICS_BACKEND_TRANSPORT_RMA;
                        info->transportReason = reported.transportReason.c_str();
                        *out = handleOf<mxlFabricsBackendDomain>(opened.release());
                    });
            }

            static void domainClose(mxlFabricsBackendDomain domain)
            {
                delete &objectOf<OfiDomain>(domain);
            }

            // `cudaDevice`: memory of that CUDA device; nullopt: host memory.
            static mxlStatus registerMemory(mxlFabricsBackendDomain domain, void const* base, std::size_t length, std::uint32_t access,
                                            std::optional<int> cudaDevice, mxlFabricsBackendMemory* out,
                                            mxlFabricsBackendRemoteRegion* remote)
            {
                return run(
                    [&]
                    {
                        auto const kind =
                            (access & MXL_FABRICS_BACKEND_REMOTE_WRITE) != 0 ? MemoryAccess::RemoteWrite : MemoryAccess::LocalSource;
                        auto const& opened = objectOf<OfiDomain>(domain);
                        auto memory = cudaDevice ? opened.registerDeviceMemory(base, length, kind, *cudaDevice)
                                                 : opened.registerMemory(base, length, kind);
                        auto const& registered = ofiMemoryOf(*memory);
                        if (remote != nullptr)
                        {
                            auto const region = registered.remote();
                            remote->address = region.addr;
                            remote->length = region.len;
                            remote->key = {reinterpret_cast<std::uint8_t const*>(&registered.key()), sizeof(std::uint64_t)};
                        }
                        *out = handleOf<mxlFabricsBackendMemory>(memory.release());
                    });
            }

            static mxlStatus memoryRegister(mxlFabricsBackendDomain domain, void const* base, std::size_t length, std::uint32_t access,
                                            mxlFabricsBackendMemory* out, mxlFabricsBackendRemoteRegion* remote)
            {
                return registerMemory(domain, base, length, access, std::nullopt, out, remote);
            }

            static mxlStatus memoryRegisterDevice(mxlFabricsBackendDomain domain, void const* base, std::size_t length,
                                                  std::uint32_t access, int cudaDevice, mxlFabricsBackendMemory* out,
                                                  mxlFabricsBackendRemoteRegion* remote)
            {
                return registerMemory(domain, base, length, access, cudaDevice, out, remote);
            }

            static void memoryDeregister(mxlFabricsBackendMemory memory)
            {
                delete &objectOf<TransportMemory>(memory);
            }

            static mxlStatus targetOpen(mxlFabricsBackendDomain domain, mxlFabricsBackendSegment const* regions, std::uint32_t regionCount,
                                        std::size_t depth, std::uint64_t targetId, mxlFabricsBackendTarget* out)
            {
                return run(
                    [&]
                    {
                        RegionSpans spans;
                        spans.reserve(regionCount);
                        for (std::uint32_t index = 0; index < regionCount; ++index)
                        {
                            // Written by peers, so writable: the table's segment type is only const for the initiator's sources.
                            spans.emplace_back(static_cast<std::uint8_t*>(const_cast<void*>(regions[index].base)), regions[index].length);
                        }
                        auto target = std::make_unique<Target>();
                        target->transport = openOfiTarget(objectOf<OfiDomain>(domain), spans, depth, targetId);
                        target->hearConnections();
                        target->address = target->transport->address();
                        target->regions = target->transport->regions();
                        for (auto const& region : target->regions)
                        {
                            target->published.push_back(
                                {region.addr, region.len, {reinterpret_cast<std::uint8_t const*>(&region.rkey), sizeof(region.rkey)}});
                        }
                        *out = handleOf<mxlFabricsBackendTarget>(target.release());
                    });
            }

            static void targetClose(mxlFabricsBackendTarget target)
            {
                delete &objectOf<Target>(target);
            }

            static mxlStatus targetAddress(mxlFabricsBackendTarget handle, mxlFabricsBackendBlob* address, std::uint32_t* format)
            {
                auto& target = objectOf<Target>(handle);
                *address = {target.address.data(), target.address.size()};
                *format = target.transport->addressFormat();
                return MXL_STATUS_OK;
            }

            static mxlStatus targetRegions(mxlFabricsBackendTarget handle, mxlFabricsBackendRemoteRegion const** regions,
                                           std::uint32_t* count)
            {
                auto& target = objectOf<Target>(handle);
                *regions = target.published.data();
                *count = static_cast<std::uint32_t>(target.published.size());
                return MXL_STATUS_OK;
            }

            static mxlStatus targetNextArrival(mxlFabricsBackendTarget handle, std::uint32_t timeoutMs,
                                               mxlFabricsBackendConnectionObserver observer, void* user, int* arrived,
                                               std::uint32_t* immediate)
            {
                auto& target = objectOf<Target>(handle);
                *arrived = 0;
                target.observer = observer;
                target.observerUser = user;
                auto const status = run(
                    [&]
                    {
                        if (auto const arrival = target.transport->nextArrival(std::chrono::milliseconds{timeoutMs}))
                        {
                            *immediate = *arrival;
                            *arrived = 1;
                        }
                    });
                target.observer = nullptr;
                target.observerUser = nullptr;
                return status;
            }

            static mxlStatus initiatorOpen(mxlFabricsBackendDomain domain, std::size_t depth, mxlFabricsBackendInitiator* out)
            {
                return run(
                    [&]
                    {
                        auto const& opened = objectOf<OfiDomain>(domain);
                        auto initiator = std::make_unique<Initiator>();
                        initiator->provider = opened.traits.provider;
                        initiator->transport = openOfiInitiator(opened, depth);
                        *out = handleOf<mxlFabricsBackendInitiator>(initiator.release());
                    });
            }

            static void initiatorClose(mxlFabricsBackendInitiator initiator)
            {
                delete &objectOf<Initiator>(initiator);
            }

            static mxlStatus initiatorPollCompletion(mxlFabricsBackendInitiator handle, mxlFabricsBackendCompletion* out,
                                                     std::uint32_t* count)
            {
                auto& initiator = objectOf<Initiator>(handle);
                return run(
                    [&]
                    {
                        *count = 0;
                        if (auto completion = initiator.transport->pollCompletion())
                        {
                            initiator.completion = std::move(*completion);
                            *out = {initiator.completion.writeId, initiator.completion.status, initiator.completion.reason.c_str()};
                            *count = 1;
                        }
                    });
            }

            static std::uint32_t eventTypeOf(ConnectionEvent::Type type) noexcept
            {
                switch (type)
                {
                case ConnectionEvent::Type::Established:
                    return MXL_FABRICS_BACKEND_ESTABLISHED;
                case ConnectionEvent::Type::Failed:
                    return MXL_FABRICS_BACKEND_FAILED;
                case ConnectionEvent::Type::ClosedByPeer:
                    return MXL_FABRICS_BACKEND_CLOSED_BY_PEER;
                }
                return MXL_FABRICS_BACKEND_FAILED;
            }

            static mxlStatus initiatorPollEvent(mxlFabricsBackendInitiator handle, mxlFabricsBackendEvent* out, std::uint32_t* count)
            {
                auto& initiator = objectOf<Initiator>(handle);
                return run(
                    [&]
                    {
                        *count = 0;
                        if (auto event = initiator.transport->pollEvent())
                        {
                            initiator.event = std::move(*event);
                            *out = {initiator.event.token, eventTypeOf(initiator.event.type), initiator.event.reason.c_str()};
                            *count = 1;
                        }
                    });
            }

            static mxlStatus initiatorWait(mxlFabricsBackendInitiator handle, std::uint32_t timeoutMs, std::uint32_t flags, int* completion)
            {
                auto& initiator = objectOf<Initiator>(handle);
                return run(
                    [&]
                    {
                        auto const connecting = (flags & MXL_FABRICS_BACKEND_WAIT_CONNECTING) != 0;
                        *completion = initiator.transport->wait(std::chrono::milliseconds{timeoutMs}, connecting) ? 1 : 0;
                    });
            }

            static mxlStatus peerOpen(mxlFabricsBackendInitiator handle, std::uint64_t targetId, mxlFabricsBackendBlob address,
                                      std::uint32_t format, mxlFabricsBackendRemoteRegion const* regions, std::uint32_t regionCount,
                                      mxlFabricsBackendPeer* out)
            {
                auto& initiator = objectOf<Initiator>(handle);
                return run(
                    [&]
                    {
                        TargetInfo ticket;
                        ticket.id = targetId;
                        ticket.provider = initiator.provider;
                        ticket.fabricAddress.assign(address.bytes, address.bytes + address.size);
                        ticket.addressFormat = format;
                        for (std::uint32_t index = 0; index < regionCount; ++index)
                        {
                            ticket.regions.push_back({regions[index].address, regions[index].length, keyOf(regions[index].key)});
                        }
                        *out = handleOf<mxlFabricsBackendPeer>(initiator.transport->peer(ticket).release());
                    });
            }

            static void peerClose(mxlFabricsBackendPeer peer)
            {
                delete &objectOf<TransportPeer>(peer);
            }

            static mxlStatus connectionOpen(mxlFabricsBackendPeer peer, std::uint64_t context, mxlFabricsBackendConnection* out)
            {
                return run([&]
                           { *out = handleOf<mxlFabricsBackendConnection>(objectOf<TransportPeer>(peer).connect(context, {}).release()); });
            }

            static mxlStatus connectionOpenWithData(mxlFabricsBackendPeer peer, std::uint64_t context, mxlFabricsBackendBlob requestData,
                                                    mxlFabricsBackendConnection* out)
            {
                return run(
                    [&]
                    {
                        *out = handleOf<mxlFabricsBackendConnection>(
                            objectOf<TransportPeer>(peer).connect(context, {requestData.bytes, requestData.size}).release());
                    });
            }

            static void connectionShutdown(mxlFabricsBackendConnection connection)
            {
                objectOf<TransportConnection>(connection).disconnect();
            }

            static void connectionClose(mxlFabricsBackendConnection connection)
            {
                delete &objectOf<TransportConnection>(connection);
            }

            static mxlStatus connectionCheck(mxlFabricsBackendConnection connection, char const** ended)
            {
                *ended = nullptr;
                return run(
                    [&]
                    {
                        if (auto reason = objectOf<TransportConnection>(connection).check())
                        {
                            endedReason = std::move(*reason);
                            *ended = endedReason.c_str();
                        }
                    });
            }

            static mxlStatus connectionWrite(mxlFabricsBackendConnection connection, mxlFabricsBackendWrite const* write,
                                             std::uint64_t context, int* posted)
            {
                *posted = 0;
                return run(
                    [&]
                    {
                        RemoteWrite converted;
                        converted.segments.reserve(write->segmentCount);
                        for (std::uint32_t index = 0; index < write->segmentCount; ++index)
                        {
                            auto const& segment = write->segments[index];
                            converted.segments.push_back({segment.base, segment.length, &objectOf<TransportMemory>(segment.memory)});
                        }
                        converted.remoteRegion = write->remoteRegion;
                        converted.remoteOffset = write->remoteOffset;
                        if ((write->flags & MXL_FABRICS_BACKEND_WRITE_IMMEDIATE) != 0)
                        {
                            converted.immediate = write->immediate;
                        }
                        converted.completesWhenRead = (write->flags & MXL_FABRICS_BACKEND_WRITE_COMPLETE_WHEN_READ) != 0;
                        *posted = objectOf<TransportConnection>(connection).write(converted, context) ? 1 : 0;
                    });
            }

            static mxlStatus targetWaitDescriptor(mxlFabricsBackendTarget handle, int* descriptor)
            {
                *descriptor = objectOf<Target>(handle).transport->waitDescriptor();
                return MXL_STATUS_OK;
            }

            static mxlStatus targetArm(mxlFabricsBackendTarget handle, int* armed)
            {
                *armed = 0;
                return run([&] { *armed = objectOf<Target>(handle).transport->arm() ? 1 : 0; });
            }

            static mxlStatus targetScreenConnections(mxlFabricsBackendTarget handle, mxlFabricsBackendAdmission admission, void* user)
            {
                auto& target = objectOf<Target>(handle);
                return run(
                    [&]
                    {
                        if (admission == nullptr)
                        {
                            target.transport->screenConnections({});
                            return;
                        }
                        target.transport->screenConnections(
                            [admission, user](ConnectionRequest const& request)
                            {
                                mxlFabricsBackendConnectionRequest const asked{{request.peerAddress.data(), request.peerAddress.size()},
                                                                               {request.privateData.data(), request.privateData.size()}};
                                return admission(user, &asked) != 0;
                            });
                    });
            }
        };
    }
}

extern "C" mxlStatus mxlFabricsBackendEntry(std::uint32_t hostAbiVersion, mxlFabricsBackendHost const* host,
                                            mxlFabricsBackend const** out_backend)
{
    return mxl::fabrics::backend::entry<mxl::fabrics::OfiCalls>(hostAbiVersion, host, out_backend);
}
