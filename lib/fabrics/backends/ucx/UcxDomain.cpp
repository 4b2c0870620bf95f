#include "fabrics/backends/ucx/UcxDomain.hpp"

#include "common/Status.hpp"
#include "fabrics/backends/ucx/UcxCudaMemory.hpp"
#include "fabrics/backends/ucx/UcxError.hpp"
#include "fabrics/backends/ucx/UcxInterfaces.hpp"
#include "fabrics/transport/DeviceMemoryKnob.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <string_view>

namespace mxl::fabrics::ucx
{
    namespace
    {
        struct ConfigRelease
        {
            void operator()(ucp_config_t* config) const noexcept
            {
                ucp_config_release(config);
            }
        };

        using Config = std::unique_ptr<ucp_config_t, ConfigRelease>;

        void set(ucp_config_t* config, char const* name, std::string const& value)
        {
            checkUcx(ucp_config_modify(config, name, value.c_str()), fmt::format("ucx: setting {} to \"{}\"", name, value));
        }

        // `cuda`: the transports that register and move CUDA memory join the provider's.
        Config configFor(mxlFabricsInterfaceConfig const& interface, mxlFabricsBackendRole role, bool cuda)
        {
            ucp_config_t* raw = nullptr;
            checkUcx(ucp_config_read(nullptr, nullptr, &raw), "ucx: reading the UCP configuration");
            Config config{raw};
            switch (interface.provider)
            {
            case MXL_FABRICS_PROVIDER_TCP:
                set(config.get(), "TLS", cuda ? "tcp,cuda_copy" : "tcp");
                // UCX's tcp sends in 8 KiB segments and reads 64 KiB per progress step: 1080p grains (5.5 MB) moved
                // about 2.5x faster with 256 KiB and 1 MiB. A sender cuts rendezvous data into messages of its own
                // receive segment, and a receiver aborts on a message larger than its own (an assertion): an
                // initiator's 512 KiB messages, which its target copies into place faster than 1 MiB ones
                // (docs/fabrics-backends-ucx.md), fit the 1 MiB every target receives, this version's or an earlier
                // one's. Transport options are named without their "TCP_" prefix here: ucp_config_modify hands them to
                // the interface's table.
                set(config.get(), "TX_SEG_SIZE", "256K");
                set(config.get(), "RX_SEG_SIZE", role == MXL_FABRICS_BACKEND_INITIATOR ? "512K" : "1M");
                if (interface.address.node != nullptr && *interface.address.node != '\0')
                {
                    auto const node = tcpNodeOf(interface.address.node);
                    set(config.get(), "NET_DEVICES", node.device);
                    // An IPv6 node is reached over IPv6 where UCX can (its default, UCX_TCP_AF_PRIO=inet,inet6, takes a
                    // device's IPv4 address first). UCX 1.13 offers no device for the IPv6 loopback address (with
                    // AF_PRIO=inet6 alone, ucx_info -d lists no lo): "::1" falls back to lo's IPv4 address.
                    if (node.ipv6)
                    {
                        set(config.get(), "AF_PRIO", "inet6,inet");
                    }
                }
                break;
            case MXL_FABRICS_PROVIDER_SHM:
                // posix/sysv carry the active messages and the puts; cma only UCX's rendezvous (by which an ordered
                // domain's writes travel). UCX 1.13 puts over a transport with short and bcopy puts alone, and posix/sysv
                // put only into memory they allocated, so where a domain puts (not ordered) a put into the flow's memory
                // travels as active messages of one segment each, which the target's progress copies into place
                // (docs/fabrics-backends-ucx.md).
                set(config.get(), "TLS", cuda ? "posix,sysv,cma,cuda_copy,cuda_ipc" : "posix,sysv,cma");
                // Segments of 8 KiB made a 1080p grain 675 messages through the 64-entry FIFO; 60 KiB makes it 90. Not
                // 64 KiB or more: grains arrived corrupted then (the byte-exact tests fail; a FIFO entry seems to hold
                // a message's length in 16 bits). Each FIFO entry is given a receive segment up front: 64 at a time
                // (instead of 512) keeps that at 4 MiB per transport, as before. Named after the table posix and sysv
                // share ("MM_"): unprefixed, "SEG_SIZE" is UCP's own.
                set(config.get(), "MM_SEG_SIZE", "60K");
                set(config.get(), "MM_RX_BUFS_GROW", "64");
                // cma pulls a rendezvous in segments, one segment a progress step: with its 512 KiB a 1080p grain took
                // 11 system calls and steps, and one grain at a time moved at 0.85-0.95x raw libfabric's rate, which
                // reads a whole write in one call. 8 MiB pulls a 1080p grain in one call and a 2160p grain in three,
                // which moves 2160p level with raw where 512 KiB segments ran ahead of it (1.04-1.16x): the price of
                // the 1080p row (docs/performance.md). A step that pulls blocks the target's worker for at most one
                // segment (about 1 ms). Named after cma's table (SCOPY_); CMA_SEG_SIZE is taken and ignored.
                set(config.get(), "SCOPY_SEG_SIZE", "8M");
                break;
            default:
                fail(MXL_ERR_NO_FABRIC, "the ucx backend carries provider tcp (1) or shm (4), not provider {}",
                     static_cast<int>(interface.provider));
            }
            return config;
        }

        // The loaded library's major and minor version.
        std::pair<unsigned, unsigned> ucxVersion()
        {
            unsigned major = 0;
            unsigned minor = 0;
            unsigned release = 0;
            ucp_get_version(&major, &minor, &release);
            return {major, minor};
        }

        // An ordered domain's writes are rendezvous active messages (UcxPlacement.hpp), whose requests UCX 1.13 sends on
        // the endpoint's one active-message lane ("am" in ucp_ep_print_info), so that the target sees them in the order
        // they were posted: over tcp with one device only (a node given: without one UCX may open lanes on several),
        // and over shm (sysv's or posix's lane; the target pulls the bytes by cma). Not for device memory (staging
        // protocols of its own, untested). Seen with UCX 1.13's protocols (v1), the only version tested here: another
        // version keeps the puts and a flush per write.
        bool writesArriveInOrder(mxlFabricsInterfaceConfig const& interface, bool cuda)
        {
            auto const oneDevice =
                interface.provider == MXL_FABRICS_PROVIDER_SHM ||
                (interface.provider == MXL_FABRICS_PROVIDER_TCP && interface.address.node != nullptr && *interface.address.node != '\0');
            // Test knob: the path of device memory and other UCX versions, on this one.
            auto const* puts = std::getenv("MXL_FABRICS_UCX_PUTS");
            auto const putsAsked = puts != nullptr && std::string_view{puts} == "1";
            return ucxVersion() == std::pair{1u, 13u} && oneDevice && !cuda && !putsAsked;
        }
    }

    UcxDomain::UcxDomain(mxlFabricsInterfaceConfig const& interface, mxlFabricsBackendRole role, bool deviceMemory)
        : _sharedMemory{interface.provider == MXL_FABRICS_PROVIDER_SHM}
        , _deviceMemory{deviceMemory}
    {
        auto const cuda = deviceMemory && !deviceMemoryIsHost();
        if (cuda && !ucxRegistersCudaMemory())
        {
            fail(MXL_ERR_UNSUPPORTED_OPERATION,
                 "ucx {} domain for device memory: this UCX reports no CUDA memory type (ucp_context_query), it was built without "
                 "its cuda transports",
                 interface.provider == MXL_FABRICS_PROVIDER_SHM ? "shm" : "tcp");
        }
        _ordered = writesArriveInOrder(interface, cuda);
        _acceptsOverTcp =
            role == MXL_FABRICS_BACKEND_TARGET && interface.provider == MXL_FABRICS_PROVIDER_TCP && ucxVersion() < std::pair{1u, 14u};
        // A tcp target's worker wakes a descriptor, so that the application's dispatch can read it. Not over shm: UCX
        // 1.13's posix and sysv left ucp_worker_arm busy for good once an initiator had written (a library thread reads
        // a shm target's events, as for libfabric's shm). Nor with CUDA's transports, untested here.
        auto const wakes = role == MXL_FABRICS_BACKEND_TARGET && interface.provider == MXL_FABRICS_PROVIDER_TCP && !cuda;
        auto const config = configFor(interface, role, cuda);
        if (_ordered)
        {
            // The order rests on the protocols of v1: UCX_PROTO_ENABLE=y in the environment must not change them.
            set(config.get(), "PROTO_ENABLE", "n");
        }
        ucp_params_t params{};
        params.field_mask = UCP_PARAM_FIELD_FEATURES;
        params.features = UCP_FEATURE_RMA | UCP_FEATURE_AM;
        if (wakes)
        {
            params.features |= UCP_FEATURE_WAKEUP;
        }
        checkUcx(ucp_init(&params, config.get(), &_context), "ucx: creating a context");

        ucp_worker_params_t workerParams{};
        workerParams.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
        // One object is driven by one thread at a time, though not always the same one (a target's event thread).
        workerParams.thread_mode = UCS_THREAD_MODE_SERIALIZED;
        if (auto const status = ucp_worker_create(_context, &workerParams, &_worker); status != UCS_OK)
        {
            ucp_cleanup(_context);
            checkUcx(status, "ucx: creating a worker");
        }
        if (wakes)
        {
            if (auto const status = ucp_worker_get_efd(_worker, &_wakeDescriptor); status != UCS_OK)
            {
                ucp_worker_destroy(_worker);
                ucp_cleanup(_context);
                checkUcx(status, "ucx: getting the worker's event descriptor");
            }
        }
    }

    UcxDomain::~UcxDomain()
    {
        if (keepWorker)
        {
            log::warn("ucx: a domain closed with receives its senders never finished keeps its worker for the life of the process ({} "
                      "kept so far)",
                      ++keptWorkers);
            return;
        }
        if (_acceptsOverTcp && !flushWireUp())
        {
            log::warn("ucx: a target's domain closed with tcp sends or connections to its initiators still unfinished a second later "
                      "(a peer that stopped, or one still connecting) keeps its worker for the life of the process ({} kept so far)",
                      ++keptWorkers);
            return;
        }
        ucp_worker_destroy(_worker);
        ucp_cleanup(_context);
    }

    bool UcxDomain::flushWireUp() noexcept
    {
        auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds{1};
        // A flush completes once it has passed every endpoint: one an initiator's request made meanwhile can still hold
        // its reply, so the worker is flushed until a flush finds nothing to wait for.
        for (;;)
        {
            bool flushed = false;
            ucp_request_param_t params{};
            params.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
            params.cb.send = [](void* /*request*/, ucs_status_t /*status*/, void* done) { *static_cast<bool*>(done) = true; };
            params.user_data = &flushed;
            auto* const request = ucp_worker_flush_nbx(_worker, &params);
            if (!UCS_PTR_IS_PTR(request))
            {
                // An error (no memory for the request) says nothing of what is queued.
                return UCS_PTR_STATUS(request) == UCS_OK;
            }
            while (!flushed && std::chrono::steady_clock::now() < deadline)
            {
                ucp_worker_progress(_worker);
            }
            // Freed before its completion, a request calls back no more.
            ucp_request_free(request);
            if (!flushed)
            {
                return false;
            }
        }
    }

    mxlFabricsBackendDomainInfo UcxDomain::info() const noexcept
    {
        mxlFabricsBackendDomainInfo info{};
        info.structSize = sizeof(info);
        info.flags = MXL_FABRICS_BACKEND_CONNECTIONLESS | (_ordered ? MXL_FABRICS_BACKEND_ORDERED_WRITES : 0u);
        info.maxMessageBytes = std::numeric_limits<std::uint64_t>::max();
        info.maxGatherSegments = maxGatherSegments;
        return info;
    }

    void UcxDomain::addWritable(std::uintptr_t base, std::size_t length)
    {
        std::lock_guard const lock{_writableLock};
        _writable.emplace_back(base, length);
    }

    void UcxDomain::removeWritable(std::uintptr_t base, std::size_t length) noexcept
    {
        std::lock_guard const lock{_writableLock};
        auto const found = std::find(_writable.begin(), _writable.end(), std::pair{base, length});
        if (found != _writable.end())
        {
            _writable.erase(found);
        }
    }

    bool UcxDomain::writable(std::uint64_t address, std::size_t length) const noexcept
    {
        std::lock_guard const lock{_writableLock};
        return std::any_of(_writable.begin(), _writable.end(),
                           [&](auto const& range)
                           {
                               auto const [base, size] = range;
                               return address >= base && length <= size && address - base <= size - length;
                           });
    }
}
