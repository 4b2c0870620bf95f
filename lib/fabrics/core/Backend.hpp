// A transport as the core reaches it: one object per loaded backend (transport/BackendLoader.hpp), and the only way into
// the transport's objects (domains, targets, initiators). The core never names the classes behind it.
#pragma once

#include <mxl/fabrics.h>

#include "fabrics/core/InitiatorTransport.hpp"
#include "fabrics/core/TargetTransport.hpp"
#include "fabrics/protocol/RegionSpans.hpp"
#include "fabrics/protocol/TransportDomain.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace mxl::fabrics
{
    // Which backend this is, for tickets, log lines and mxl-fabrics-info.
    struct BackendIdentity
    {
        std::string name;             // "ofi": the file is libmxl-fabrics-<name>.so
        std::string path;             // the file it was loaded from
        std::uint32_t abiVersion = 0; // the backend ABI it was built with: major << 16 | minor
    };

    class Backend
    {
    public:
        virtual ~Backend() = default;

        [[nodiscard]] virtual BackendIdentity const& identity() const noexcept = 0;

        // Emits each interface that `query` (may be NULL) lets through; the strings of an entry live only during its
        // emit call.
        virtual void forEachInterface(mxlFabricsInterfaceConfig const* query,
                                      std::function<void(mxlFabricsInterfaceConfig const&)> const& emit) = 0;
        // Opens the interface `config` names for the transport `asked` (its DomainInfo says which one Auto chose); the
        // API's checks (InterfaceChecks.hpp) come first.
        [[nodiscard]] virtual std::unique_ptr<TransportDomain> openDomain(mxlFabricsInterfaceConfig const& config, Role role,
                                                                          Transport asked) = 0;
        // openDomain for a domain that registers device memory too (registerDeviceMemory); host flows never ask for
        // one. MXL_ERR_UNSUPPORTED_OPERATION, naming the provider and why, where the interface (or a backend older than
        // ABI 1.3) registers no device memory.
        [[nodiscard]] virtual std::unique_ptr<TransportDomain> openDeviceDomain(mxlFabricsInterfaceConfig const& config, Role role,
                                                                                Transport asked) = 0;
        // Registers `regions` for remote writes and accepts initiators for as long as the target lives; `domain` (a
        // target domain of this backend) outlives it. `cqDepth` 0: the backend's default. `targetId` names the target in
        // log lines.
        [[nodiscard]] virtual std::unique_ptr<TargetTransport> openTarget(TransportDomain const& domain, RegionSpans const& regions,
                                                                          std::size_t cqDepth, std::uint64_t targetId) = 0;
        // The queues of an initiator over `domain` (an initiator domain of this backend), which outlives them.
        // `cqDepth` 0: the backend's default.
        [[nodiscard]] virtual std::unique_ptr<InitiatorTransport> openInitiator(TransportDomain const& domain, std::size_t cqDepth) = 0;
    };
}
