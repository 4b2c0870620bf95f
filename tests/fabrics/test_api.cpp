// The C API without transfers: provider strings, interface discovery, tickets from strings, setup errors.
#include "FabricsHarness.hpp"
#include "Skip.hpp"
#include "common/Log.hpp"
#include <client/LogCapture.hpp>

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

using namespace mxl::test;
using namespace mxl::test::fabrics;
using mxl::client::LogCapture;

namespace
{
    struct Interfaces
    {
        std::vector<mxlFabricsInterfaceConfig> entries;
        mxlFabricsInterfaceList* list = nullptr;

        Interfaces(mxlFabricsInstance fabrics, mxlFabricsInterfaceConfig const* query)
        {
            REQUIRE(mxlFabricsGetInterfaces(fabrics, query, &list) == MXL_STATUS_OK);
            for (auto* entry = list; entry != nullptr; entry = entry->next)
            {
                entries.push_back(entry->interface);
            }
        }

        ~Interfaces()
        {
            CHECK(mxlFabricsFreeInterfaceList(list) == MXL_STATUS_OK);
        }

        std::size_t count(mxlFabricsProvider provider) const
        {
            return static_cast<std::size_t>(
                std::count_if(entries.begin(), entries.end(), [&](auto const& entry) { return entry.provider == provider; }));
        }
    };

    // The size protocol of a ...ToString call `toString(text, &size)` that gives `expected`: a null buffer gets the size
    // with its terminator, a buffer one short STRLEN, and a buffer of that size the text, terminated.
    template <typename ToString>
    void checkSizeProtocol(ToString&& toString, std::string const& expected)
    {
        std::size_t size = 0;
        REQUIRE(toString(nullptr, &size) == MXL_STATUS_OK);
        CHECK(size == expected.size() + 1);
        std::string text(size, 'x');
        size = expected.size();
        CHECK(toString(text.data(), &size) == MXL_ERR_STRLEN);
        size = text.size();
        REQUIRE(toString(text.data(), &size) == MXL_STATUS_OK);
        CHECK(std::string{text.c_str()} == expected);
    }
}

TEST_CASE("provider strings round-trip and reject unknown values")
{
    for (auto const& [provider, name] : std::vector<std::pair<mxlFabricsProvider, std::string>>{{MXL_FABRICS_PROVIDER_ANY, "any"},
                                                                                                {MXL_FABRICS_PROVIDER_TCP, "tcp"},
                                                                                                {MXL_FABRICS_PROVIDER_VERBS, "verbs"},
                                                                                                {MXL_FABRICS_PROVIDER_EFA, "efa"},
                                                                                                {MXL_FABRICS_PROVIDER_SHM, "shm"}})
    {
        checkSizeProtocol([&](char* text, std::size_t* size) { return mxlFabricsProviderToString(provider, text, size); }, name);
        mxlFabricsProvider parsed{};
        REQUIRE(mxlFabricsProviderFromString(name.c_str(), &parsed) == MXL_STATUS_OK);
        CHECK(parsed == provider);
    }
    mxlFabricsProvider parsed{};
    CHECK(mxlFabricsProviderFromString("TCP", &parsed) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFabricsProviderFromString("", &parsed) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFabricsProviderFromString(nullptr, &parsed) == MXL_ERR_INVALID_ARG);
    std::size_t size = 0;
    CHECK(mxlFabricsProviderToString(static_cast<mxlFabricsProvider>(5), nullptr, &size) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFabricsProviderToString(MXL_FABRICS_PROVIDER_TCP, nullptr, nullptr) == MXL_ERR_INVALID_ARG);
}

TEST_CASE("interfaces: unfiltered lists tcp and shm with caps, sizes and attributes")
{
    FlowDomain domain{"fab-ifaces"};
    Interfaces const all{domain.fabrics, nullptr};
    CHECK(all.count(MXL_FABRICS_PROVIDER_TCP) >= 1);
    CHECK(all.count(MXL_FABRICS_PROVIDER_SHM) >= 1);
    // libfabric's providers can sleep in the kernel and describe their fi_info; UCX polls and names device and transports.
    auto const libfabric = backendOf(domain.fabrics) == "ofi";
    for (auto const& entry : all.entries)
    {
        CHECK(((entry.caps.flags & MXL_FABRICS_IFACE_CAP_BLOCKING_OPERATIONS) != 0) == libfabric);
        CHECK((entry.caps.flags & MXL_FABRICS_IFACE_CAP_REMOTE_WRITE) != 0);
        CHECK(entry.caps.maxMessageSize > 0);
        REQUIRE(entry.address.node != nullptr);
        CHECK(std::strlen(entry.address.node) > 0);
        REQUIRE(entry.attr != nullptr);
        auto const attributes = nlohmann::json::parse(entry.attr);
        // How a device flow would cross, on every interface: never silent.
        auto const hmem = (entry.caps.flags & MXL_FABRICS_IFACE_CAP_HMEM) != 0;
        CHECK(attributes.value("device_payloads", "") ==
              (hmem ? "registered directly where the device memory registers, else staged through pinned host memory"
                    : "staged through pinned host memory"));
        if (libfabric)
        {
            CHECK(attributes.contains("ep_type"));
            CHECK(attributes.contains("fi_domain_name"));
            CHECK(attributes.at("fi_hmem").is_boolean());
        }
        else
        {
            CHECK(attributes.contains("transports"));
        }
    }

    auto query = interfaceConfig(MXL_FABRICS_PROVIDER_TCP, nullptr, nullptr);
    Interfaces const tcp{domain.fabrics, &query};
    CHECK(tcp.entries.size() == all.count(MXL_FABRICS_PROVIDER_TCP));
    CHECK(tcp.count(MXL_FABRICS_PROVIDER_TCP) == tcp.entries.size());

    query.provider = MXL_FABRICS_PROVIDER_SHM;
    Interfaces const shm{domain.fabrics, &query};
    CHECK(shm.entries.size() == all.count(MXL_FABRICS_PROVIDER_SHM));

    // Caps in a query do not filter.
    mxlFabricsInterfaceConfig capsOnly{};
    capsOnly.caps.flags = MXL_FABRICS_IFACE_CAP_REMOTE_WRITE | MXL_FABRICS_IFACE_CAP_SEND_RECEIVE;
    Interfaces const byCaps{domain.fabrics, &capsOnly};
    CHECK(byCaps.entries.size() == all.entries.size());

    query = interfaceConfig(MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", nullptr);
    Interfaces const loopback{domain.fabrics, &query};
    REQUIRE(loopback.entries.size() == 1);
    CHECK(std::string{loopback.entries[0].address.node} == "127.0.0.1");

    query = interfaceConfig(MXL_FABRICS_PROVIDER_TCP, "192.0.2.254", nullptr);
    Interfaces const none{domain.fabrics, &query};
    CHECK(none.list == nullptr);

    query.provider = static_cast<mxlFabricsProvider>(7);
    mxlFabricsInterfaceList* list = nullptr;
    CHECK(mxlFabricsGetInterfaces(domain.fabrics, &query, &list) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFabricsGetInterfaces(nullptr, nullptr, &list) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFabricsFreeInterfaceList(nullptr) == MXL_STATUS_OK);
}

TEST_CASE("tickets: string round trip with the size protocol, and bad tickets give the right status")
{
    auto const good = std::string{
        R"({"addressFormat":2,"epoch":"5","fabricAddress":"AgBhp38AAAEAAAAAAAAAAA==","id":"99","provider":"tcp","regions":[{"addr":"0","len":"12288","rkey":"3"}]})"};
    mxlFabricsTargetInfo ticket = nullptr;
    REQUIRE(mxlFabricsTargetInfoFromString(good.c_str(), &ticket) == MXL_STATUS_OK);
    checkSizeProtocol([&](char* text, std::size_t* size) { return mxlFabricsTargetInfoToString(ticket, text, size); }, good);
    CHECK(mxlFabricsFreeTargetInfo(ticket) == MXL_STATUS_OK);
    CHECK(mxlFabricsFreeTargetInfo(nullptr) == MXL_ERR_INVALID_ARG);

    auto const status = [](std::string const& json)
    {
        mxlFabricsTargetInfo parsed = nullptr;
        auto const result = mxlFabricsTargetInfoFromString(json.c_str(), &parsed);
        if (parsed != nullptr)
        {
            mxlFabricsFreeTargetInfo(parsed);
        }
        return result;
    };
    CHECK(status(good.substr(0, good.size() / 2)) == MXL_ERR_INVALID_ARG);
    CHECK(status("not json") == MXL_ERR_INVALID_ARG);
    CHECK(status("[1,2]") == MXL_ERR_INVALID_ARG);
    CHECK(status("") == MXL_ERR_INVALID_ARG);
    CHECK(status(R"({"addressFormat":77,"fabricAddress":"AA==","id":"1","provider":"tcp","regions":[]})") == MXL_ERR_INVALID_ARG);
    CHECK(status(R"({"addressFormat":"2","fabricAddress":"AA==","id":"1","provider":"tcp","regions":[]})") == MXL_ERR_INVALID_ARG);
    CHECK(status(R"({"fabricAddress":"AA==","id":"1","provider":"tcp","regions":[]})") == MXL_ERR_UNKNOWN);
    CHECK(status(R"({"addressFormat":2,"id":"1","provider":"tcp","regions":[]})") == MXL_ERR_UNKNOWN);
    CHECK(status(R"({"addressFormat":2,"fabricAddress":"AA==","provider":"tcp","regions":[]})") == MXL_ERR_UNKNOWN);
    CHECK(status(R"({"addressFormat":2,"fabricAddress":"AA==","id":"1","regions":[]})") == MXL_ERR_UNKNOWN);
    CHECK(status(R"({"addressFormat":2,"fabricAddress":"AA==","id":"1","provider":"tcp"})") == MXL_ERR_UNKNOWN);
    CHECK(status(R"({"addressFormat":2,"fabricAddress":"AA==","id":1,"provider":"tcp","regions":[]})") == MXL_ERR_UNKNOWN);
    CHECK(status(R"({"addressFormat":2,"fabricAddress":"AA==","id":"1","provider":7,"regions":[]})") == MXL_ERR_UNKNOWN);
    CHECK(status(R"({"addressFormat":2,"fabricAddress":"AA==","id":"1","provider":"tcp","regions":{}})") == MXL_ERR_UNKNOWN);
    CHECK(status(R"({"addressFormat":2,"fabricAddress":"AA==","id":"1","provider":"tcp","regions":[{"addr":"0","len":"1"}]})") ==
          MXL_ERR_UNKNOWN);
    CHECK(status(R"({"addressFormat":2,"fabricAddress":"AA==","id":"1","provider":"tcp","regions":[{"addr":0,"len":"1","rkey":"1"}]})") ==
          MXL_ERR_UNKNOWN);
    CHECK(status(R"({"addressFormat":2,"fabricAddress":"A!==","id":"1","provider":"tcp","regions":[]})") == MXL_ERR_UNKNOWN);
    CHECK(status(R"({"addressFormat":2,"fabricAddress":"","id":"1","provider":"tcp","regions":[]})") == MXL_ERR_UNKNOWN);
    CHECK(status(R"({"addressFormat":2,"fabricAddress":"AA==","id":"18446744073709551616","provider":"tcp","regions":[]})") ==
          MXL_ERR_UNKNOWN);
    CHECK(status(R"({"addressFormat":2,"fabricAddress":"AA==","id":"-1","provider":"tcp","regions":[]})") == MXL_ERR_UNKNOWN);
    CHECK(status(R"({"addressFormat":2,"fabricAddress":"AA==","id":"12abc","provider":"tcp","regions":[]})") == MXL_ERR_UNKNOWN);
    CHECK(status(R"({"addressFormat":2,"bounceBufferInfo":5,"fabricAddress":"AA==","id":"1","provider":"tcp","regions":[]})") ==
          MXL_ERR_UNKNOWN);
    CHECK(status(R"({"addressFormat":2,"fabricAddress":"AA==","id":"1","provider":"tcp","regions":[],"epoch":3})") == MXL_ERR_UNKNOWN);

    mxlFabricsTargetInfo parsed = nullptr;
    CHECK(mxlFabricsTargetInfoFromString(nullptr, &parsed) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFabricsTargetInfoFromString(good.c_str(), nullptr) == MXL_ERR_INVALID_ARG);
}

TEST_CASE("setup: cqDepth options, caps and provider errors")
{
    FlowDomain domain{"fab-setup"};
    Flow flow{domain, flowDefinition("v210_1080p59.94.json")};
    auto const tcp = interfaceConfig(MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", nullptr);

    for (auto const* options : {static_cast<char const*>(nullptr), "", R"({"cqDepth": 64})", R"({"cqDepth": 1.5, "other": true})"})
    {
        TargetEnd target{domain, flow, tcp, options};
        CHECK(target.setupStatus == MXL_STATUS_OK);
    }
    for (auto const* options : {R"({"cqDepth": 0})", R"({"cqDepth": "big"})", "{not json", "[64]", R"({"cqDepth": -3})"})
    {
        TargetEnd target{domain, flow, tcp, options};
        CHECK(target.setupStatus == MXL_ERR_INVALID_ARG);
    }

    auto any = tcp;
    any.provider = MXL_FABRICS_PROVIDER_ANY;
    CHECK(TargetEnd{domain, flow, any}.setupStatus == MXL_ERR_INVALID_STATE);
    auto noCaps = tcp;
    noCaps.caps.flags = 0;
    CHECK(TargetEnd{domain, flow, noCaps}.setupStatus == MXL_ERR_INVALID_ARG);
    auto sendOnly = tcp;
    sendOnly.caps.flags = MXL_FABRICS_IFACE_CAP_SEND_RECEIVE;
    CHECK(TargetEnd{domain, flow, sendOnly}.setupStatus == MXL_ERR_NO_FABRIC);
    CHECK(TargetEnd{domain, flow, interfaceConfig(MXL_FABRICS_PROVIDER_TCP, "localhost", nullptr)}.setupStatus == MXL_ERR_INVALID_ARG);
    CHECK(TargetEnd{domain, flow, interfaceConfig(MXL_FABRICS_PROVIDER_TCP, nullptr, "24999")}.setupStatus == MXL_ERR_INVALID_ARG);
    CHECK(TargetEnd{domain, flow, interfaceConfig(MXL_FABRICS_PROVIDER_TCP, "192.0.2.254", nullptr)}.setupStatus == MXL_ERR_NO_FABRIC);

    mxlFabricsInitiator initiator = nullptr;
    REQUIRE(mxlFabricsCreateInitiator(domain.fabrics, &initiator) == MXL_STATUS_OK);
    CHECK(mxlFabricsInitiatorMakeProgressNonBlocking(initiator) == MXL_ERR_INVALID_STATE);
    CHECK(mxlFabricsInitiatorTransferGrain(initiator, 0, 0, 1) == MXL_ERR_INVALID_STATE);
    CHECK(mxlFabricsDestroyInitiator(domain.fabrics, initiator) == MXL_STATUS_OK);
}

TEST_CASE("setup: verbs and efa fail clearly where the hardware is absent")
{
    FlowDomain domain{"fab-hw"};
    Flow flow{domain, flowDefinition("smpte291_59.94.json")};
    for (auto const provider : {MXL_FABRICS_PROVIDER_VERBS, MXL_FABRICS_PROVIDER_EFA})
    {
        auto query = interfaceConfig(provider, nullptr, nullptr);
        Interfaces const present{domain.fabrics, &query};
        if (!present.entries.empty())
        {
            MXL_SKIP("this host has verbs or efa interfaces; the absent-hardware error cannot be shown");
        }
        auto const node = provider == MXL_FABRICS_PROVIDER_VERBS ? "127.0.0.1" : nullptr;
        CHECK(TargetEnd{domain, flow, interfaceConfig(provider, node, nullptr)}.setupStatus == MXL_ERR_NO_FABRIC);
    }
}

TEST_CASE("setup: an unset maxMessageSize is mentioned once per process, below the default log level")
{
    FlowDomain domain{"api-maxmsg"};
    Flow flow{domain, flowDefinition("v210_1080p25.json")};
    LogCapture capture;
    for (int i = 0; i < 3; ++i)
    {
        TargetEnd target{domain, flow, interfaceConfig(MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", nullptr)};
        REQUIRE(target.setupStatus == MXL_STATUS_OK);
    }
    auto const text = capture.text();
    INFO("stderr: ", text);
    std::size_t mentions = 0;
    for (auto at = text.find("maxMessageSize is not set"); at != std::string::npos; at = text.find("maxMessageSize is not set", at + 1))
    {
        ++mentions;
    }
    CHECK(mentions == (mxl::log::enabled(mxl::log::Level::Info) ? 1U : 0U));
}
