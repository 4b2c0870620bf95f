#include "FabricsHarness.hpp"

#include <mxl/fabrics_backends.h>

#include "Checksum.hpp"
#include "GrainPattern.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <dlfcn.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>

namespace mxl::test::fabrics
{
    std::string flowDefinition(std::string const& file)
    {
        return readFile(sourcePath("flows/" + file));
    }

    mxlFabricsInterfaceConfig interfaceConfig(mxlFabricsProvider provider, char const* node, char const* service)
    {
        mxlFabricsInterfaceConfig config{};
        config.version = MXL_FABRICS_API_VERSION;
        config.provider = provider;
        config.caps.version = MXL_FABRICS_API_VERSION;
        config.caps.flags = MXL_FABRICS_IFACE_CAP_REMOTE_WRITE | MXL_FABRICS_IFACE_CAP_BLOCKING_OPERATIONS;
        config.address.node = node;
        config.address.service = service;
        return config;
    }

    FlowDomain::FlowDomain(std::string const& tag, std::optional<std::uint64_t> historyNs)
        : _directory{tag}
    {
        if (historyNs)
        {
            std::ofstream{_directory.path() / "options.json"}
                << nlohmann::json{{"urn:x-mxl:option:history_duration/v1.0", *historyNs}}.dump();
        }
        instance = mxlCreateInstance(_directory.str().c_str(), nullptr);
        REQUIRE(instance != nullptr);
        REQUIRE(mxlFabricsCreateInstance(instance, nullptr, &fabrics) == MXL_STATUS_OK);
    }

    FlowDomain::~FlowDomain()
    {
        CHECK(mxlFabricsDestroyInstance(fabrics) == MXL_STATUS_OK);
        CHECK(mxlDestroyInstance(instance) == MXL_STATUS_OK);
    }

    Flow::Flow(FlowDomain& domain, std::string const& definition, char const* options)
        : instance{domain.instance}
    {
        REQUIRE(mxlCreateFlowWriter(instance, definition.c_str(), options, &writer, &config, nullptr) == MXL_STATUS_OK);
        auto const id = nlohmann::json::parse(definition).at("id").get<std::string>();
        REQUIRE(mxlCreateFlowReader(instance, id.c_str(), nullptr, &reader) == MXL_STATUS_OK);
    }

    Flow::~Flow()
    {
        CHECK(mxlReleaseFlowReader(instance, reader) == MXL_STATUS_OK);
        CHECK(mxlReleaseFlowWriter(instance, writer) == MXL_STATUS_OK);
    }

    TargetEnd::TargetEnd(FlowDomain& domain, Flow& flow, mxlFabricsInterfaceConfig const& interface, char const* options)
        : fabrics{domain.fabrics}
    {
        REQUIRE(mxlFabricsCreateTarget(fabrics, &target) == MXL_STATUS_OK);
        mxlFabricsTargetConfig config{};
        config.interface = interface;
        config.writer = flow.writer;
        setupStatus = mxlFabricsTargetSetup(target, &config, options, &ticket);
    }

    TargetEnd::~TargetEnd()
    {
        if (ticket != nullptr)
        {
            CHECK(mxlFabricsFreeTargetInfo(ticket) == MXL_STATUS_OK);
        }
        if (target != nullptr)
        {
            CHECK(mxlFabricsDestroyTarget(fabrics, target) == MXL_STATUS_OK);
        }
    }

    std::optional<std::uint64_t> TargetEnd::read(std::chrono::milliseconds timeout)
    {
        std::uint64_t index = 0;
        auto const status = mxlFabricsTargetReadGrain(target, static_cast<std::uint16_t>(timeout.count()), &index);
        if (status == MXL_ERR_NOT_READY)
        {
            return std::nullopt;
        }
        REQUIRE(status == MXL_STATUS_OK);
        return index;
    }

    InitiatorEnd::InitiatorEnd(FlowDomain& domain, Flow& flow, mxlFabricsInterfaceConfig const& interface, char const* options)
        : fabrics{domain.fabrics}
    {
        REQUIRE(mxlFabricsCreateInitiator(fabrics, &initiator) == MXL_STATUS_OK);
        mxlFabricsInitiatorConfig config{};
        config.interface = interface;
        config.reader = flow.reader;
        REQUIRE(mxlFabricsInitiatorSetup(initiator, &config, options) == MXL_STATUS_OK);
    }

    InitiatorEnd::~InitiatorEnd()
    {
        CHECK(mxlFabricsDestroyInitiator(fabrics, initiator) == MXL_STATUS_OK);
    }

    mxlFabricsTargetState InitiatorEnd::state(TargetEnd const& target, std::string* reason) const
    {
        mxlFabricsTargetState state{};
        std::size_t size = 0;
        REQUIRE(mxlFabricsInitiatorGetTargetState(initiator, target.ticket, &state, nullptr, &size) == MXL_STATUS_OK);
        std::string text(size, '\0');
        REQUIRE(mxlFabricsInitiatorGetTargetState(initiator, target.ticket, &state, text.data(), &size) == MXL_STATUS_OK);
        text.resize(size - 1);
        if (reason != nullptr)
        {
            *reason = text;
        }
        return state;
    }

    std::uint64_t writeGrain(Flow& source, std::uint64_t index, std::uint32_t seed, std::uint32_t flags)
    {
        mxlGrainInfo info;
        std::uint8_t* payload = nullptr;
        REQUIRE(mxlFlowWriterOpenGrain(source.writer, index, &info, &payload) == MXL_STATUS_OK);
        fillGrainPattern(payload, info.grainSize, index, seed);
        info.validSlices = info.totalSlices;
        info.flags = flags;
        REQUIRE(mxlFlowWriterCommitGrain(source.writer, &info) == MXL_STATUS_OK);
        return fnv1a(payload, info.grainSize);
    }

    mxlStatus settle(InitiatorEnd& initiator, std::initializer_list<TargetEnd*> targets, std::chrono::milliseconds timeout)
    {
        auto const deadline = std::chrono::steady_clock::now() + timeout;
        auto status = MXL_ERR_NOT_READY;
        while (std::chrono::steady_clock::now() < deadline)
        {
            for (auto* target : targets)
            {
                static_cast<void>(target->read(std::chrono::milliseconds{0}));
            }
            status = mxlFabricsInitiatorMakeProgressBlocking(initiator.initiator, 1);
            if (status != MXL_ERR_NOT_READY)
            {
                return status;
            }
        }
        return status;
    }

    std::optional<std::uint64_t> receive(InitiatorEnd& initiator, TargetEnd& target, std::chrono::milliseconds timeout)
    {
        auto const deadline = std::chrono::steady_clock::now() + timeout;
        while (std::chrono::steady_clock::now() < deadline)
        {
            if (auto index = target.read(std::chrono::milliseconds{1}))
            {
                return index;
            }
            static_cast<void>(mxlFabricsInitiatorMakeProgressNonBlocking(initiator.initiator));
        }
        return std::nullopt;
    }

    std::optional<ReadBack> readBack(Flow& flow, std::uint64_t index, std::uint16_t minValidSlices)
    {
        ReadBack result;
        std::uint8_t* payload = nullptr;
        auto const status = mxlFlowReaderGetGrainSliceNonBlocking(flow.reader, index, minValidSlices, &result.info, &payload);
        if (status != MXL_STATUS_OK)
        {
            MESSAGE("grain " << index << " is not readable at the target: status " << static_cast<int>(status));
            return std::nullopt;
        }
        result.payload = payload;
        result.checksum = fnv1a(payload, result.info.grainSize);
        return result;
    }

    std::string backendOf(mxlFabricsInstance instance)
    {
        mxlFabricsBackendInfo info{};
        REQUIRE(mxlFabricsGetBackendInfo(instance, &info) == MXL_STATUS_OK);
        return info.name;
    }

    std::string ticketText(mxlFabricsTargetInfo ticket)
    {
        std::size_t size = 0;
        REQUIRE(mxlFabricsTargetInfoToString(ticket, nullptr, &size) == MXL_STATUS_OK);
        std::string text(size, '\0');
        REQUIRE(mxlFabricsTargetInfoToString(ticket, text.data(), &size) == MXL_STATUS_OK);
        text.resize(size - 1);
        return text;
    }

    std::uint64_t ticketNumber(mxlFabricsTargetInfo ticket, char const* key)
    {
        return std::stoull(nlohmann::json::parse(ticketText(ticket)).at(key).get<std::string>());
    }

    bool hasIpv6Loopback()
    {
        auto const fd = ::socket(AF_INET6, SOCK_STREAM, 0);
        if (fd < 0)
        {
            return false;
        }
        sockaddr_in6 address{};
        address.sin6_family = AF_INET6;
        address.sin6_addr = in6addr_loopback;
        auto const bound = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
        ::close(fd);
        return bound;
    }

    mxlFabricsBackend const& backendTable(std::string const& name, std::string& path)
    {
        path = std::string{MXL_BINARY_DIR} + "/lib/fabrics/mxl-fabrics/libmxl-fabrics-" + name + ".so";
        auto* module = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        REQUIRE_MESSAGE(module != nullptr, ::dlerror());
        auto const entry = reinterpret_cast<mxlFabricsBackendEntryFunction>(::dlsym(module, MXL_FABRICS_BACKEND_ENTRY_SYMBOL));
        REQUIRE((entry != nullptr));
        mxlFabricsBackendHost const host{sizeof(mxlFabricsBackendHost), nullptr};
        mxlFabricsBackend const* table = nullptr;
        REQUIRE(entry(MXL_FABRICS_BACKEND_ABI_VERSION, &host, &table) == MXL_STATUS_OK);
        return *table;
    }
}
