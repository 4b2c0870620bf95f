#include "SourceRun.hpp"

#include "InitiatorApp.hpp"
#include "RedundantTargetApp.hpp"
#include "SyncConsumer.hpp"
#include "TargetApp.hpp"

#include <csignal>
#include <exception>
#include <functional>
#include <memory>
#include <thread>

namespace mxl::demo
{
    namespace
    {
        // Runs every job in its own thread; the first failure raises SIGTERM so the others finish, and is rethrown.
        void runConcurrently(std::vector<std::function<void()>> const& jobs)
        {
            // One flow stays on the main thread, where the signals that end it arrive.
            if (jobs.size() == 1)
            {
                jobs.front()();
                return;
            }
            std::vector<std::exception_ptr> errors(jobs.size());
            std::vector<std::thread> threads;
            threads.reserve(jobs.size());
            for (std::size_t i = 0; i < jobs.size(); ++i)
            {
                threads.emplace_back(
                    [&, i]
                    {
                        try
                        {
                            jobs[i]();
                        }
                        catch (...)
                        {
                            errors[i] = std::current_exception();
                            std::raise(SIGTERM);
                        }
                    });
            }
            for (auto& thread : threads)
            {
                thread.join();
            }
            for (auto const& error : errors)
            {
                if (error)
                {
                    std::rethrow_exception(error);
                }
            }
        }

        // Each flow's target listens on its own service: a port number counts up from the one given (0 stays "any free
        // port"), a name gets the flow's position appended.
        std::string serviceOfFlow(std::string const& service, std::size_t position)
        {
            if (service.empty() || position == 0)
            {
                return service;
            }
            if (service.find_first_not_of("0123456789") == std::string::npos)
            {
                auto const port = std::stoul(service);
                return port == 0 ? service : std::to_string(port + position);
            }
            return service + "-" + std::to_string(position);
        }

        template <typename App>
        std::vector<std::unique_ptr<App>> makeApps(std::vector<DemoOptions> const& flows)
        {
            std::vector<std::unique_ptr<App>> apps;
            for (auto const& options : flows)
            {
                apps.push_back(std::make_unique<App>(options));
            }
            return apps;
        }
    }

    std::vector<DemoOptions> optionsPerFlow(DemoOptions const& options)
    {
        if (options.flows.size() <= 1)
        {
            return {options};
        }
        std::vector<DemoOptions> result;
        for (std::size_t i = 0; i < options.flows.size(); ++i)
        {
            auto& flow = result.emplace_back(options);
            flow.flow = options.flows[i];
            flow.flows = {options.flows[i]};
            flow.targetInfo = options.targetInfo.empty() ? std::vector<std::string>{} : std::vector<std::string>{options.targetInfo[i]};
            if (!options.initiator)
            {
                flow.service = serviceOfFlow(options.service, i);
            }
        }
        return result;
    }

    void runTargets(std::vector<DemoOptions> const& flows)
    {
        if (!flows.front().paths.empty())
        {
            RedundantTargetApp{flows.front()}.run();
            return;
        }
        auto apps = makeApps<TargetApp>(flows);
        std::vector<std::function<void()>> jobs;
        std::vector<std::string> flowIds;
        for (auto& app : apps)
        {
            jobs.emplace_back([&app] { app->run(); });
            flowIds.push_back(app->flowId());
        }
        std::unique_ptr<SyncConsumer> consumer;
        if (apps.size() > 1)
        {
            consumer = std::make_unique<SyncConsumer>(flows.front().domain, flowIds);
            jobs.emplace_back([&consumer] { consumer->run(); });
        }
        runConcurrently(jobs);
    }

    void runInitiators(std::vector<DemoOptions> const& flows)
    {
        auto apps = makeApps<InitiatorApp>(flows);
        std::vector<std::function<void()>> jobs;
        for (auto& app : apps)
        {
            jobs.emplace_back([&app] { app->run(); });
        }
        runConcurrently(jobs);
    }
}
