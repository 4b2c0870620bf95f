// Device memory at the transport (backend ABI 1.3): which interfaces report MXL_FABRICS_IFACE_CAP_HMEM, domains opened
// for device memory and why they are refused here (Debian's libfabric and UCX are built without CUDA), and, under the
// test knob MXL_FABRICS_DEVICE_MEMORY_IS_HOST=1, "device" memory (host memory then) registered and written from.
// Runs against the ofi backend and again as "ucx:fabrics-tests: ..." against UCX.
#include "FabricsHarness.hpp"
#include "ScopedVariable.hpp"
#include "SuiteBackend.hpp"

#include "common/Status.hpp"
#include "fabrics/core/Backend.hpp"
#include "fabrics/core/SetupOptions.hpp"
#include "fabrics/ticket/TargetInfo.hpp"
#include "fabrics/transport/BackendLoader.hpp"
#include "fabrics/transport/TableBackend.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <numeric>
#include <string>
#include <vector>

using namespace mxl::test;
using namespace mxl::test::fabrics;
using mxl::fabrics::MemoryAccess;
using mxl::fabrics::Role;
using FabricsTransport = mxl::fabrics::Transport;

namespace
{
    mxl::fabrics::Backend& backend()
    {
        return mxl::fabrics::backendNamed(suiteBackendName());
    }

    // The interface of each provider a test opens: loopback for tcp, a name of the library's choosing for shm.
    mxlFabricsInterfaceConfig localInterface(mxlFabricsProvider provider)
    {
        return interfaceConfig(provider, provider == MXL_FABRICS_PROVIDER_TCP ? "127.0.0.1" : nullptr, nullptr);
    }

    // The status and text of what `body` threw; fails the test when it threw nothing.
    std::pair<mxlStatus, std::string> refusal(auto&& body)
    {
        try
        {
            body();
        }
        catch (mxl::Error const& e)
        {
            return {e.status(), e.what()};
        }
        FAIL("no refusal");
        return {};
    }

    bool contains(std::string const& text, std::string const& part)
    {
        return text.find(part) != std::string::npos;
    }

    // The caps each interface reports, by provider (the last entry of a provider wins; they agree).
    std::vector<std::pair<mxlFabricsProvider, mxlFabricsInterfaceConfig>> interfaces()
    {
        std::vector<std::pair<mxlFabricsProvider, mxlFabricsInterfaceConfig>> found;
        backend().forEachInterface(nullptr,
                                   [&](mxlFabricsInterfaceConfig const& entry)
                                   {
                                       auto copy = entry;
                                       // The strings live only during the emit: keep the flags.
                                       copy.address = {};
                                       copy.attr = nullptr;
                                       found.emplace_back(entry.provider, copy);
                                   });
        return found;
    }

    // Writes `source` (registered as "device" memory of CUDA device 0 on a device domain) with immediate 42 into a host
    // target's region of the same size and returns what the region holds once the immediate arrived.
    std::vector<std::uint8_t> writeFromDeviceMemory(mxlFabricsProvider provider, std::vector<std::uint8_t> const& source)
    {
        auto& transport = backend();
        auto const config = localInterface(provider);
        auto const targetDomain = transport.openDomain(config, Role::Target, FabricsTransport::Auto);
        std::vector<std::uint8_t> landed(source.size(), 0);
        mxl::fabrics::RegionSpans const spans{{landed.data(), landed.size()}};
        auto const target = transport.openTarget(*targetDomain, spans, 0, 1);

        mxl::fabrics::TargetInfo ticket;
        ticket.id = 1;
        ticket.provider = provider;
        ticket.fabricAddress = target->address();
        ticket.addressFormat = target->addressFormat();
        ticket.regions = target->regions();

        auto const initiatorDomain = transport.openDeviceDomain(config, Role::Initiator, FabricsTransport::Auto);
        auto const memory = initiatorDomain->registerDeviceMemory(source.data(), source.size(), MemoryAccess::LocalSource, 0);
        auto const initiator = transport.openInitiator(*initiatorDomain, 0);
        auto const peer = initiator->peer(ticket);
        auto const connection = peer->connect(7, {});

        mxl::fabrics::RemoteWrite write;
        write.segments.push_back({source.data(), source.size(), memory.get()});
        write.immediate = 42;
        auto established = initiatorDomain->reported.connectionless;
        auto posted = false;
        auto completed = false;
        std::optional<std::uint32_t> arrived;
        auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds{30};
        while ((!arrived || !completed) && std::chrono::steady_clock::now() < deadline)
        {
            if (auto const event = initiator->pollEvent())
            {
                REQUIRE_MESSAGE(event->type == mxl::fabrics::ConnectionEvent::Type::Established, event->reason);
                established = true;
            }
            if (established && !posted)
            {
                posted = connection->write(write, 1);
            }
            if (auto const completion = initiator->pollCompletion())
            {
                REQUIRE_MESSAGE(completion->status == MXL_STATUS_OK, completion->reason);
                CHECK(completion->writeId == 1);
                completed = true;
            }
            if (auto const immediate = target->nextArrival(std::chrono::milliseconds{10}))
            {
                arrived = immediate;
            }
        }
        REQUIRE(arrived);
        CHECK(*arrived == 42);
        CHECK(completed);
        return landed;
    }
}

TEST_CASE("device registration: CAP_HMEM where the provider registers device memory, on every interface under the test knob")
{
    ScopedVariable const unset{deviceMemoryIsHostKnob, std::nullopt};
    auto const libfabric = suiteBackendName() == "ofi";
    auto shmSeen = false;
    for (auto const& [provider, entry] : interfaces())
    {
        auto const hmem = (entry.caps.flags & MXL_FABRICS_IFACE_CAP_HMEM) != 0;
        INFO("provider ", static_cast<int>(provider));
        // Debian's libfabric: shm lists its interface a second time with FI_HMEM (system memory only, as registering
        // shows below); tcp has no FI_HMEM. Debian's UCX reports no CUDA memory type.
        CHECK(hmem == (libfabric && provider == MXL_FABRICS_PROVIDER_SHM));
        shmSeen = shmSeen || provider == MXL_FABRICS_PROVIDER_SHM;
    }
    CHECK(shmSeen);
    if (libfabric)
    {
        // The attribute says the same as the flag.
        backend().forEachInterface(nullptr,
                                   [](mxlFabricsInterfaceConfig const& entry)
                                   {
                                       auto const attributes = nlohmann::json::parse(entry.attr);
                                       CHECK(attributes.at("fi_hmem").get<bool>() ==
                                             ((entry.caps.flags & MXL_FABRICS_IFACE_CAP_HMEM) != 0));
                                   });
    }

    ScopedVariable const set{deviceMemoryIsHostKnob, "1"};
    auto const all = interfaces();
    CHECK(!all.empty());
    for (auto const& [provider, entry] : all)
    {
        INFO("provider ", static_cast<int>(provider));
        CHECK((entry.caps.flags & MXL_FABRICS_IFACE_CAP_HMEM) != 0);
    }
}

TEST_CASE("device registration: setup takes an interface's full caps with CAP_HMEM, which it does not require")
{
    FlowDomain domain{"fab-hmem-caps"};
    Flow flow{domain, flowDefinition("v210_1080p59.94.json")};
    auto withHmem = localInterface(MXL_FABRICS_PROVIDER_TCP);
    withHmem.caps.flags |= MXL_FABRICS_IFACE_CAP_HMEM;
    TargetEnd const target{domain, flow, withHmem};
    CHECK(target.setupStatus == MXL_STATUS_OK);
    CHECK(target.ticket != nullptr);
}

namespace
{
    // Checks that `body` is refused with UNSUPPORTED_OPERATION and a text that holds each of `parts`.
    void checkUnsupported(auto&& body, std::initializer_list<std::string> parts)
    {
        auto const [status, text] = refusal(body);
        CHECK(status == MXL_ERR_UNSUPPORTED_OPERATION);
        for (auto const& part : parts)
        {
            CHECK_MESSAGE(contains(text, part), text);
        }
    }

    // Opens a target domain for device memory on the tcp loopback interface over `kind`.
    void openTcpDeviceTarget(FabricsTransport kind)
    {
        static_cast<void>(backend().openDeviceDomain(localInterface(MXL_FABRICS_PROVIDER_TCP), Role::Target, kind));
    }
}

TEST_CASE("device registration: without the knob a device domain is refused here, naming the provider and why")
{
    ScopedVariable const unset{deviceMemoryIsHostKnob, std::nullopt};
    auto& transport = backend();
    std::vector<std::uint8_t> memory(8192);
    if (suiteBackendName() == "ofi")
    {
        checkUnsupported([] { openTcpDeviceTarget(FabricsTransport::Auto); },
                         {"tcp target interface for device memory: provider tcp does not register device memory (no FI_HMEM)"});

        // shm claims FI_HMEM, so the domain opens; its build registers system memory only, which registering says.
        auto const shm = transport.openDeviceDomain(localInterface(MXL_FABRICS_PROVIDER_SHM), Role::Target, FabricsTransport::Auto);
        checkUnsupported([&] { static_cast<void>(shm->registerDeviceMemory(memory.data(), memory.size(), MemoryAccess::RemoteWrite, 0)); },
                         {"registering 8192 bytes of CUDA device 0 memory at ", " failed: fi_mr_regattr: "});
        // Host memory still registers on that domain.
        CHECK(shm->registerMemory(memory.data(), memory.size(), MemoryAccess::RemoteWrite)->length() == memory.size());
    }
    else
    {
        for (auto const provider : {MXL_FABRICS_PROVIDER_TCP, MXL_FABRICS_PROVIDER_SHM})
        {
            checkUnsupported(
                [&] { static_cast<void>(transport.openDeviceDomain(localInterface(provider), Role::Target, FabricsTransport::Auto)); },
                {"domain for device memory: this UCX reports no CUDA memory type (ucp_context_query)"});
        }
    }
}

TEST_CASE("device registration: a host domain refuses device memory, and device memory does not travel over msg")
{
    ScopedVariable const set{deviceMemoryIsHostKnob, "1"};
    auto& transport = backend();
    std::vector<std::uint8_t> memory(4096);
    auto const host = transport.openDomain(localInterface(MXL_FABRICS_PROVIDER_TCP), Role::Initiator, FabricsTransport::Auto);
    checkUnsupported([&] { static_cast<void>(host->registerDeviceMemory(memory.data(), memory.size(), MemoryAccess::LocalSource, 3)); },
                     {"registering 4096 bytes of CUDA device 3 memory at ", "was not opened for device memory"});

    if (suiteBackendName() == "ofi")
    {
        checkUnsupported([] { openTcpDeviceTarget(FabricsTransport::Msg); },
                         {"provider tcp was asked for transport msg, whose target places what it receives with host copies; "
                          "device memory needs rma"});
        // Where the provider has no RMA (the test knob MXL_FABRICS_OFI_HIDE_RMA), auto cannot fall back to msg.
        ScopedVariable const hidden{"MXL_FABRICS_OFI_HIDE_RMA", "1"};
        checkUnsupported([] { openTcpDeviceTarget(FabricsTransport::Auto); },
                         {"provider tcp has no endpoint with FI_RMA and remote CQ data, and device memory needs rma"});
    }
}

TEST_CASE("device registration: under the knob, device memory is the source of a byte-exact write over tcp and shm")
{
    ScopedVariable const set{deviceMemoryIsHostKnob, "1"};
    for (auto const provider : {MXL_FABRICS_PROVIDER_TCP, MXL_FABRICS_PROVIDER_SHM})
    {
        INFO("provider ", static_cast<int>(provider));
        std::vector<std::uint8_t> source(64 * 1024 + 17);
        for (std::size_t index = 0; index < source.size(); ++index)
        {
            source[index] = static_cast<std::uint8_t>(index * 131 + 7 * static_cast<int>(provider));
        }
        CHECK(writeFromDeviceMemory(provider, source) == source);
    }
}

TEST_CASE("device registration: a backend of ABI 1.2 (a table without memory_register_device) registers no device memory")
{
    std::string path;
    auto const* table = &backendTable(suiteBackendName(), path);
    CHECK(table->structSize == sizeof(mxlFabricsBackend));
    CHECK((table->abiVersion & 0xffffu) == MXL_FABRICS_BACKEND_ABI_MINOR);

    // The same backend as a 1.2 build would present it: its table ends before domain_open_device.
    auto older = *table;
    older.abiVersion = (1u << 16) | 2u;
    older.structSize = MXL_FABRICS_BACKEND_TABLE_1_2_SIZE;
    auto const backend12 = mxl::fabrics::tableBackend(older, {suiteBackendName(), path, older.abiVersion});
    ScopedVariable const set{deviceMemoryIsHostKnob, "1"};
    auto const [status, text] = refusal(
        [&] {
            static_cast<void>(backend12->openDeviceDomain(localInterface(MXL_FABRICS_PROVIDER_TCP), Role::Target, FabricsTransport::Auto));
        });
    CHECK(status == MXL_ERR_UNSUPPORTED_OPERATION);
    CHECK(text == "fabrics backend " + suiteBackendName() +
                      " (ABI 1.2) registers no device memory: that needs backend ABI 1.3 (memory_register_device)");
    // Its host domains open as before.
    CHECK(backend12->openDomain(localInterface(MXL_FABRICS_PROVIDER_TCP), Role::Target, FabricsTransport::Auto) != nullptr);
}

TEST_CASE("device payloads: the setup option names auto, direct or staged, and MXL_FABRICS_DEVICE_PAYLOADS is the default")
{
    using mxl::fabrics::DevicePayloads;
    using mxl::fabrics::SetupOptions;
    ScopedVariable const unset{"MXL_FABRICS_DEVICE_PAYLOADS", std::nullopt};
    CHECK(SetupOptions::parse(nullptr).devicePayloads == DevicePayloads::Auto);
    CHECK(SetupOptions::parse(R"({"devicePayloads": "direct"})").devicePayloads == DevicePayloads::Direct);
    CHECK(SetupOptions::parse(R"({"devicePayloads": "staged", "cqDepth": 8})").devicePayloads == DevicePayloads::Staged);
    auto const [status, text] = refusal([] { static_cast<void>(SetupOptions::parse(R"({"devicePayloads": "gpu"})")); });
    CHECK(status == MXL_ERR_INVALID_ARG);
    CHECK(text == R"(option devicePayloads must be "auto", "direct" or "staged", not "gpu")");

    ScopedVariable const direct{"MXL_FABRICS_DEVICE_PAYLOADS", "direct"};
    CHECK(SetupOptions::parse(nullptr).devicePayloads == DevicePayloads::Direct);
    CHECK(SetupOptions::parse(R"({"devicePayloads": "auto"})").devicePayloads == DevicePayloads::Auto);
    ScopedVariable const wrong{"MXL_FABRICS_DEVICE_PAYLOADS", "always"};
    auto const [variableStatus, variableText] = refusal([] { static_cast<void>(SetupOptions::parse(nullptr)); });
    CHECK(variableStatus == MXL_ERR_INVALID_ARG);
    CHECK(variableText == R"(MXL_FABRICS_DEVICE_PAYLOADS must be auto, direct or staged, not "always")");
}
