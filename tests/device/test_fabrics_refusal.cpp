// The fabrics layer refuses device flows (their transfer is the next part of issue 9) with a status and a message that
// say so, through a fake device module.
#if MXL_TEST_WITH_CUDA && MXL_TEST_WITH_FABRICS

#    include "DeviceTestSupport.hpp"
#    include "FabricsHarness.hpp"

#    include <mxl/fabrics.h>

#    include <doctest/doctest.h>

using namespace mxl::test;
using mxl::test::fabrics::interfaceConfig;

TEST_CASE("device flows (fake module): fabrics targets and initiators refuse them")
{
    useFakeModule("working");
    DomainFixture fixture{"device"};
    auto const created = createWriter(fixture.instance, flowDefinition(videoFlowFile), deviceOptions);
    REQUIRE(created.status == MXL_STATUS_OK);
    mxlFlowReader reader = nullptr;
    REQUIRE(mxlCreateFlowReader(fixture.instance, flowId(videoFlowFile).c_str(), nullptr, &reader) == MXL_STATUS_OK);
    mxlFabricsInstance fabrics = nullptr;
    REQUIRE(mxlFabricsCreateInstance(fixture.instance, nullptr, &fabrics) == MXL_STATUS_OK);

    mxlFabricsTarget target = nullptr;
    REQUIRE(mxlFabricsCreateTarget(fabrics, &target) == MXL_STATUS_OK);
    auto const loopback = interfaceConfig(MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", "0");
    mxlFabricsTargetConfig targetConfig{};
    targetConfig.interface = loopback;
    targetConfig.writer = created.writer;
    mxlFabricsTargetInfo ticket = nullptr;
    StderrCapture targetCapture;
    CHECK(mxlFabricsTargetSetup(target, &targetConfig, nullptr, &ticket) == MXL_ERR_UNSUPPORTED_OPERATION);
    checkLogHas(targetCapture.text(), {"the target's flow has its payloads in the memory of CUDA device 0: device flows cannot cross the "
                                       "fabric in this version"});

    mxlFabricsInitiator initiator = nullptr;
    REQUIRE(mxlFabricsCreateInitiator(fabrics, &initiator) == MXL_STATUS_OK);
    mxlFabricsInitiatorConfig initiatorConfig{};
    initiatorConfig.interface = loopback;
    initiatorConfig.reader = reader;
    StderrCapture initiatorCapture;
    CHECK(mxlFabricsInitiatorSetup(initiator, &initiatorConfig, nullptr) == MXL_ERR_UNSUPPORTED_OPERATION);
    checkLogHas(initiatorCapture.text(), {"the initiator's flow has its payloads in the memory of CUDA device 0: device flows cannot cross "
                                          "the fabric in this version"});

    mxlFabricsDestroyInitiator(fabrics, initiator);
    mxlFabricsDestroyTarget(fabrics, target);
    mxlFabricsDestroyInstance(fabrics);
    mxlReleaseFlowReader(fixture.instance, reader);
    mxlReleaseFlowWriter(fixture.instance, created.writer);
}

#endif
