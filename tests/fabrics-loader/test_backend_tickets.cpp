// Tickets name their backend only when it is not "ofi" (so that ofi tickets stay the MXL SDK's, byte for byte), and an
// initiator refuses a ticket of another backend, naming both.
#include "FabricsHarness.hpp"
#include "Link.hpp"
#include <client/LogCapture.hpp>

#include <mxl/fabrics.h>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <string>

using namespace mxl::test::fabrics;
using mxl::client::LogCapture;

TEST_CASE("backend tickets: an ofi ticket has no backend key, and an ofi initiator refuses a ticket of backend \"x\"")
{
    LoopbackEnds ends{"loader"};
    auto& target = ends.target;
    auto& initiator = ends.initiator;
    REQUIRE(target.setupStatus == MXL_STATUS_OK);

    auto json = nlohmann::json::parse(ticketText(target.ticket));
    CHECK_FALSE(json.contains("backend"));

    json["backend"] = "x";
    mxlFabricsTargetInfo foreign = nullptr;
    REQUIRE(mxlFabricsTargetInfoFromString(json.dump().c_str(), &foreign) == MXL_STATUS_OK);
    // The key survives a round trip, so that whoever forwards the ticket keeps it.
    CHECK(nlohmann::json::parse(ticketText(foreign))["backend"] == "x");
    std::string logged;
    mxlStatus status = MXL_STATUS_OK;
    {
        LogCapture capture;
        status = mxlFabricsInitiatorAddTarget(initiator.initiator, foreign);
        logged = capture.text();
    }
    CHECK(status == MXL_ERR_INVALID_ARG);
    INFO("logged: ", logged);
    CHECK(logged.find("was set up with fabrics backend \"x\", this initiator uses backend \"ofi\"") != std::string::npos);
    CHECK(mxlFabricsFreeTargetInfo(foreign) == MXL_STATUS_OK);

    // The same ticket without the key is the target's own and is taken.
    CHECK(mxlFabricsInitiatorAddTarget(initiator.initiator, target.ticket) == MXL_STATUS_OK);
    CHECK(mxlFabricsInitiatorRemoveTarget(initiator.initiator, target.ticket) == MXL_STATUS_OK);
}
