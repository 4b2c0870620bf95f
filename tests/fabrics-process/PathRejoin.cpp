#include "PathRejoin.hpp"
#include "Scenario.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <string_view>

namespace mxl::test
{
    std::unique_ptr<NetworkNamespaces> twoLinksToCut(std::string& whyNot)
    {
        if (auto const* backend = std::getenv("MXL_FABRICS_BACKEND"); backend != nullptr && std::string_view{backend} == "ucx")
        {
            whyNot = "UCX backend: a cut tcp link to one target stalls the initiator's other target too, so a cut path is not hitless yet";
            return nullptr;
        }
        return NetworkNamespaces::create(whyNot, 2);
    }

    PathReport requirePathReport(DemoProcess& target)
    {
        auto report = target.pathReport();
        REQUIRE_MESSAGE(report.has_value(), "the target printed no paths: line; stderr:\n", target.errors());
        REQUIRE(report->first.size() == 2);
        return *report;
    }

    PathReport waitForRejoin(std::size_t path, PathReport const& cut, DemoProcess& target, double unitsPerSecond,
                             std::function<void(std::chrono::seconds)> const& checkFor)
    {
        auto const start = std::chrono::steady_clock::now();
        auto previous = cut;
        int steadyPeriods = 0;
        for (;;)
        {
            auto const periodStart = std::chrono::steady_clock::now();
            checkFor(std::chrono::seconds{2});
            auto const report = requirePathReport(target);
            auto const now = std::chrono::steady_clock::now();
            auto const delivered = report.first[path] + report.late[path] - previous.first[path] - previous.late[path];
            auto const written = std::chrono::duration<double>(now - periodStart).count() * unitsPerSecond;
            steadyPeriods = static_cast<double>(delivered) >= 0.6 * written ? steadyPeriods + 1 : 0;
            previous = report;
            auto const waited = std::chrono::duration<double>(now - start).count();
            if (steadyPeriods == 2)
            {
                MESSAGE("path ", path + 1, " delivered steadily again ", waited, " s after its link came back");
                return report;
            }
            REQUIRE_MESSAGE(waited < 60.0, "path ", path + 1,
                            " did not deliver steadily within 60 s of its link coming back; target stderr:\n", target.errors());
        }
    }

    void stopRedundantEnds(DemoProcess& initiator, std::string const& role, DemoProcess& target, std::filesystem::path const& targetDomain,
                           std::uint64_t excused)
    {
        stopCleanly(initiator, role);
        CHECK(stopCleanly(target, "target").lost <= excused);
        for (auto const& entry : std::filesystem::directory_iterator{targetDomain})
        {
            CHECK_MESSAGE(!entry.path().filename().string().starts_with(".mxl-private-"), entry.path().string(), " was left behind");
        }
    }
}
