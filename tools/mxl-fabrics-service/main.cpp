// mxl-fabrics-service: the target or initiator of one flow as a long-running, self-healing systemd service.
// SIGHUP reads the HTTPS certificate files again. Exit codes: 0 after SIGTERM/SIGINT, 78 (EX_CONFIG) for a bad configuration (a flow
// definition or options libmxl refuses included), the tools' codes otherwise (1 failure, 3 domain unavailable, 4 flow not found).
#include "InitiatorService.hpp"
#include "Notifier.hpp"
#include "ServiceAuthorization.hpp"
#include "ServiceConfig.hpp"
#include "ServiceLog.hpp"
#include "TargetService.hpp"

#include <ExitRequest.hpp>
#include <ReloadRequest.hpp>
#include <ToolError.hpp>
#include <ToolMain.hpp>
#include <client/TaiOffsetCheck.hpp>

#include <fmt/format.h>

#include <cstdio>
#include <optional>
#include <string>

namespace
{
    constexpr char const* programName = "mxl-fabrics-service";

    mxl::tools::ExitCode runService(mxl::service::ServiceConfig const& config)
    {
        using namespace mxl::service;
        log::setLevel(config.logLevel);
        ClientTokens const tokens{config};
        Notifier notifier;
        if (auto const watchdog = notifier.watchdogInterval())
        {
            log::info("watchdog: pinging every {} ms", std::chrono::duration_cast<std::chrono::milliseconds>(*watchdog).count() / 2);
        }
        if (config.role == Role::Target)
        {
            // A target whose flow was deleted or re-created under it starts afresh on the same configuration, its counters
            // going on.
            mxl::bridge::MetricsTotals totals;
            for (;;)
            {
                TargetService service{config, notifier, totals};
                if (!service.run())
                {
                    break;
                }
                totals = service.totals();
            }
        }
        else
        {
            InitiatorService service{config, notifier};
            service.run();
        }
        return mxl::tools::ExitCode::Success;
    }
}

int main(int argc, char** argv)
{
    mxl::tools::installExitRequestHandlers();
    mxl::tools::installReloadRequestHandler();
    // Bad configuration shows while loading the settings and also later (a node or HTTP address this host does not
    // have); either way it ends with EX_CONFIG rather than the tools' failure code.
    std::optional<std::string> configProblem;
    auto const status = mxl::tools::runToolMain(programName,
                                                [&]
                                                {
                                                    try
                                                    {
                                                        auto const config = mxl::service::loadServiceConfig(argc, argv);
                                                        if (!config)
                                                        {
                                                            return mxl::tools::ExitCode::Success;
                                                        }
                                                        mxl::client::warnIfTaiOffsetUnset();
                                                        return runService(*config);
                                                    }
                                                    catch (mxl::service::ConfigError const& error)
                                                    {
                                                        configProblem = error.what();
                                                        return mxl::tools::ExitCode::Success;
                                                    }
                                                    // Input the tools call bad usage (a flow definition or options that
                                                    // libmxl refuses) is configuration here: restarting cannot mend it.
                                                    catch (mxl::tools::ToolError const& error)
                                                    {
                                                        if (error.kind() != mxl::client::ErrorKind::Usage)
                                                        {
                                                            throw;
                                                        }
                                                        configProblem = error.what();
                                                        return mxl::tools::ExitCode::Success;
                                                    }
                                                });
    if (configProblem)
    {
        fmt::print(stderr, "{}: {}\n", programName, *configProblem);
        return mxl::service::configErrorExitCode;
    }
    return status;
}
