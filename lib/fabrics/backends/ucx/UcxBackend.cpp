// The UCX backend behind the C table of transport/fabrics_backend.h, built as its own module (libmxl-fabrics-ucx.so,
// exporting only mxlFabricsBackendEntry; its table and entry: transport/BackendTable). Each call runs the classes of
// this folder and turns what they throw into a status and this thread's last error text; handles are the C++ objects
// themselves. Nothing here waits in the kernel for a signal to end, so no status comes without a text.
#include "common/Status.hpp"
#include "fabrics/backends/ucx/UcxConnection.hpp"
#include "fabrics/backends/ucx/UcxDomain.hpp"
#include "fabrics/backends/ucx/UcxInitiator.hpp"
#include "fabrics/backends/ucx/UcxInterfaces.hpp"
#include "fabrics/backends/ucx/UcxMemory.hpp"
#include "fabrics/backends/ucx/UcxPeer.hpp"
#include "fabrics/backends/ucx/UcxTarget.hpp"
#include "fabrics/ticket/TicketAddressFormat.hpp"
#include "fabrics/transport/BackendTable.hpp"
#include "fabrics/transport/DeviceMemoryKnob.hpp"
#include "fabrics/transport/fabrics_backend.h"

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

namespace mxl::fabrics::ucx
{
    using backend::handleOf;
    using backend::lastErrorText;
    using backend::objectOf;
    using backend::refuse;
    using backend::run;

    namespace
    {
        struct UcxCalls
        {
            static constexpr char const* name = "ucx";
            // Why a peer ended, as connection_check last said on this thread.
            static inline thread_local std::string endedReason;

            static mxlStatus listInterfaces(mxlFabricsInterfaceConfig const* query, void (*emit)(void*, mxlFabricsInterfaceConfig const*),
                                            void* user)
            {
                return run([&] { forEachUcxInterface(query, [&](mxlFabricsInterfaceConfig const& entry) { emit(user, &entry); }); });
            }

            static mxlStatus openDomain(mxlFabricsInterfaceConfig const* config, mxlFabricsBackendRole role, std::uint32_t transport,
                                        bool deviceMemory, mxlFabricsBackendDomain* out, mxlFabricsBackendDomainInfo* info)
            {
                if (transport == MXL_FABRICS_BACKEND_TRANSPORT_MSG)
                {
                    return refuse(MXL_ERR_INVALID_ARG,
                                  "transport msg was asked for, but fabrics backend ucx has no msg transport yet: it moves grains with RMA "
                                  "(ucp_put) only; ask for transport rma or auto");
                }
                return run(
                    [&]
                    {
                        auto domain = std::make_unique<UcxDomain>(*config, role, deviceMemory);
                        *info = domain->info();
                        info->transport = MXL_FABRICS_BACKEND_TRANSPORT_RMA;
                        info->transportReason =
                            transport == MXL_FABRICS_BACKEND_TRANSPORT_RMA ? "asked" : "the ucx backend carries rma only";
                        *out = handleOf<mxlFabricsBackendDomain>(domain.release());
                    });
            }

            static void domainClose(mxlFabricsBackendDomain domain)
            {
                delete &objectOf<UcxDomain>(domain);
            }

            // `cuda`: CUDA device memory (UCX registers no other device's).
            static mxlStatus registerMemory(mxlFabricsBackendDomain domain, void const* base, std::size_t length, std::uint32_t access,
                                            bool cuda, mxlFabricsBackendMemory* out, mxlFabricsBackendRemoteRegion* remote)
            {
                return run(
                    [&]
                    {
                        auto const remoteWrite = (access & MXL_FABRICS_BACKEND_REMOTE_WRITE) != 0;
                        auto memory = std::make_unique<UcxMemory>(objectOf<UcxDomain>(domain), base, length, remoteWrite, cuda);
                        if (remote != nullptr && remoteWrite)
                        {
                            *remote = memory->remote();
                        }
                        *out = handleOf<mxlFabricsBackendMemory>(memory.release());
                    });
            }

            static mxlStatus memoryRegister(mxlFabricsBackendDomain domain, void const* base, std::size_t length, std::uint32_t access,
                                            mxlFabricsBackendMemory* out, mxlFabricsBackendRemoteRegion* remote)
            {
                return registerMemory(domain, base, length, access, false, out, remote);
            }

            // UCX takes the device from the CUDA context current on this thread, so `cudaDevice` only names it in texts.
            static mxlStatus memoryRegisterDevice(mxlFabricsBackendDomain domain, void const* base, std::size_t length,
                                                  std::uint32_t access, int cudaDevice, mxlFabricsBackendMemory* out,
                                                  mxlFabricsBackendRemoteRegion* remote)
            {
                if (!objectOf<UcxDomain>(domain).deviceMemory())
                {
                    return refuse(
                        MXL_ERR_UNSUPPORTED_OPERATION,
                        fmt::format("ucx: registering {} bytes of CUDA device {} memory at {}: the domain was not opened for device memory",
                                    length, cudaDevice, base));
                }
                return registerMemory(domain, base, length, access, !deviceMemoryIsHost(), out, remote);
            }

            static void memoryDeregister(mxlFabricsBackendMemory memory)
            {
                delete &objectOf<UcxMemory>(memory);
            }

            // completionDepth: arrivals wait in an unbounded queue of immediates, so the target has no depth to size.
            static mxlStatus targetOpen(mxlFabricsBackendDomain domain, mxlFabricsBackendSegment const* regions, std::uint32_t regionCount,
                                        std::size_t /*completionDepth*/, std::uint64_t targetId, mxlFabricsBackendTarget* out)
            {
                return run(
                    [&]
                    {
                        auto target = std::make_unique<UcxTarget>(objectOf<UcxDomain>(domain), regions, regionCount, targetId);
                        *out = handleOf<mxlFabricsBackendTarget>(target.release());
                    });
            }

            static void targetClose(mxlFabricsBackendTarget target)
            {
                delete &objectOf<UcxTarget>(target);
            }

            static mxlStatus targetAddress(mxlFabricsBackendTarget handle, mxlFabricsBackendBlob* address, std::uint32_t* format)
            {
                auto const& bytes = objectOf<UcxTarget>(handle).address();
                *address = {bytes.data(), bytes.size()};
                *format = static_cast<std::uint32_t>(TicketAddressFormat::UcxWorkerAddress);
                return MXL_STATUS_OK;
            }

            static mxlStatus targetRegions(mxlFabricsBackendTarget handle, mxlFabricsBackendRemoteRegion const** regions,
                                           std::uint32_t* count)
            {
                auto const& published = objectOf<UcxTarget>(handle).regions();
                *regions = published.data();
                *count = static_cast<std::uint32_t>(published.size());
                return MXL_STATUS_OK;
            }

            // Connectionless: the observer is never called (a worker does not report who reaches it).
            static mxlStatus targetNextArrival(mxlFabricsBackendTarget handle, std::uint32_t timeoutMs,
                                               mxlFabricsBackendConnectionObserver /*observer*/, void* /*user*/, int* arrived,
                                               std::uint32_t* immediate)
            {
                *arrived = 0;
                return run(
                    [&]
                    {
                        if (auto const arrival = objectOf<UcxTarget>(handle).nextArrival(std::chrono::milliseconds{timeoutMs}))
                        {
                            *immediate = *arrival;
                            *arrived = 1;
                        }
                    });
            }

            static mxlStatus initiatorOpen(mxlFabricsBackendDomain domain, std::size_t depth, mxlFabricsBackendInitiator* out)
            {
                return run(
                    [&]
                    {
                        auto initiator = std::make_unique<UcxInitiator>(objectOf<UcxDomain>(domain), depth);
                        *out = handleOf<mxlFabricsBackendInitiator>(initiator.release());
                    });
            }

            static void initiatorClose(mxlFabricsBackendInitiator initiator)
            {
                delete &objectOf<UcxInitiator>(initiator);
            }

            static mxlStatus initiatorPollCompletion(mxlFabricsBackendInitiator handle, mxlFabricsBackendCompletion* out,
                                                     std::uint32_t* count)
            {
                *count = 0;
                return run(
                    [&]
                    {
                        if (auto const completion = objectOf<UcxInitiator>(handle).pollCompletion())
                        {
                            *out = *completion;
                            *count = 1;
                        }
                    });
            }

            // Only FAILED: a connection is usable as soon as it is open, and a target tells nobody it leaves.
            static mxlStatus initiatorPollEvent(mxlFabricsBackendInitiator handle, mxlFabricsBackendEvent* out, std::uint32_t* count)
            {
                *count = 0;
                if (auto const event = objectOf<UcxInitiator>(handle).pollEvent())
                {
                    *out = *event;
                    *count = 1;
                }
                return MXL_STATUS_OK;
            }

            static mxlStatus initiatorWait(mxlFabricsBackendInitiator /*handle*/, std::uint32_t /*timeoutMs*/, std::uint32_t /*flags*/,
                                           int* completion)
            {
                *completion = 0;
                return refuse(MXL_ERR_UNSUPPORTED_OPERATION,
                              "ucx: initiator_wait is not offered (the domain has no CAN_WAIT flag): poll the completions");
            }

            static mxlStatus peerOpen(mxlFabricsBackendInitiator handle, std::uint64_t targetId, mxlFabricsBackendBlob address,
                                      std::uint32_t format, mxlFabricsBackendRemoteRegion const* regions, std::uint32_t regionCount,
                                      mxlFabricsBackendPeer* out)
            {
                return run(
                    [&]
                    {
                        auto peer =
                            std::make_unique<UcxPeer>(objectOf<UcxInitiator>(handle), targetId, address, format, regions, regionCount);
                        *out = handleOf<mxlFabricsBackendPeer>(peer.release());
                    });
            }

            static void peerClose(mxlFabricsBackendPeer peer)
            {
                delete &objectOf<UcxPeer>(peer);
            }

            // Never NOT_READY: an endpoint is created without the peer, and a vanished one shows as a FAILED event (tcp) or
            // through connection_check (shm), and as failed writes.
            static mxlStatus connectionOpen(mxlFabricsBackendPeer peer, std::uint64_t context, mxlFabricsBackendConnection* out)
            {
                return run(
                    [&]
                    {
                        auto connection = std::make_unique<UcxConnection>(objectOf<UcxPeer>(peer), context);
                        *out = handleOf<mxlFabricsBackendConnection>(connection.release());
                    });
            }

            // Connectionless: the target keeps nothing per initiator, so there is nothing to tell it before the close.
            static void connectionShutdown(mxlFabricsBackendConnection /*connection*/) {}

            static void connectionClose(mxlFabricsBackendConnection connection)
            {
                delete &objectOf<UcxConnection>(connection);
            }

            static mxlStatus connectionCheck(mxlFabricsBackendConnection connection, char const** ended)
            {
                *ended = nullptr;
                return run(
                    [&]
                    {
                        if (auto const& reason = objectOf<UcxConnection>(connection).check())
                        {
                            endedReason = *reason;
                            *ended = endedReason.c_str();
                        }
                    });
            }

            static mxlStatus connectionWrite(mxlFabricsBackendConnection connection, mxlFabricsBackendWrite const* write,
                                             std::uint64_t context, int* posted)
            {
                *posted = 0;
                return run([&] { *posted = objectOf<UcxConnection>(connection).write(*write, context) ? 1 : 0; });
            }

            static mxlStatus targetWaitDescriptor(mxlFabricsBackendTarget handle, int* descriptor)
            {
                *descriptor = objectOf<UcxTarget>(handle).waitDescriptor();
                return MXL_STATUS_OK;
            }

            static mxlStatus targetArm(mxlFabricsBackendTarget handle, int* armed)
            {
                *armed = 0;
                return run([&] { *armed = objectOf<UcxTarget>(handle).arm() ? 1 : 0; });
            }

            static mxlStatus targetScreenConnections(mxlFabricsBackendTarget /*handle*/, mxlFabricsBackendAdmission admission,
                                                     void* /*user*/)
            {
                if (admission == nullptr)
                {
                    return MXL_STATUS_OK;
                }
                return refuse(MXL_ERR_UNSUPPORTED_OPERATION,
                              "a ucx target receives no connection requests (initiators reach its worker by the ticket's address), so it "
                              "cannot screen them");
            }

            static mxlStatus connectionOpenWithData(mxlFabricsBackendPeer peer, std::uint64_t context, mxlFabricsBackendBlob requestData,
                                                    mxlFabricsBackendConnection* out)
            {
                if (requestData.size != 0)
                {
                    return refuse(
                        MXL_ERR_UNSUPPORTED_OPERATION,
                        "a ucx initiator sends no connection requests to carry a proof of the ticket key (it reaches the target's "
                        "worker by its address)");
                }
                return connectionOpen(peer, context, out);
            }
        };
    }
}

extern "C" MXL_EXPORT mxlStatus mxlFabricsBackendEntry(std::uint32_t hostAbiVersion, mxlFabricsBackendHost const* host,
                                                       mxlFabricsBackend const** out_backend)
{
    return mxl::fabrics::backend::entry<mxl::fabrics::ucx::UcxCalls>(hostAbiVersion, host, out_backend);
}
