#include "RegistryProcess.hpp"

#include "SchemaCheck.hpp"

#include <HttpClient.hpp>
#include <HttpsTrust.hpp>
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <httplib.h>

#include <csignal>
#include <thread>

namespace mxl::test
{
    namespace
    {
        using Clock = std::chrono::steady_clock;

        nlohmann::json waitFor(std::function<nlohmann::json()> const& read, std::function<bool(nlohmann::json const&)> const& done,
                               std::chrono::milliseconds timeout, char const* what)
        {
            auto const deadline = Clock::now() + timeout;
            auto last = read();
            while (!done(last) && Clock::now() < deadline)
            {
                std::this_thread::sleep_for(std::chrono::milliseconds{50});
                last = read();
            }
            INFO("the registry's ", what, " after ", timeout.count(), " ms: ", last.dump());
            CHECK(done(last));
            return last;
        }
    }

    namespace
    {
        std::vector<std::string> registryCommand(int port, std::chrono::milliseconds expiry,
                                                 std::optional<RegistryProcess::Secured> const& secured)
        {
            std::vector<std::string> command{"/usr/bin/python3",
                                             std::string{MXL_SOURCE_DIR} + "/tests/nmos/registry.py",
                                             nmosSchemaDirectory().string(),
                                             "--port",
                                             std::to_string(port),
                                             "--expiry-s",
                                             fmt::format("{:.3f}", std::chrono::duration<double>(expiry).count())};
            if (secured)
            {
                command.insert(command.end(), {"--tls-cert", secured->certificate, "--tls-key", secured->key, "--require-bearer"});
            }
            return command;
        }
    }

    RegistryProcess::RegistryProcess(int port, std::chrono::milliseconds expiry, std::optional<Secured> secured)
        : _process{std::make_unique<Process>(registryCommand(port, expiry, secured))}
        , _secured{std::move(secured)}
    {
        constexpr std::string_view announcement = "registry: listening on 127.0.0.1:";
        auto const line = _process->waitForLine(std::string{announcement}, std::chrono::seconds{20});
        REQUIRE_MESSAGE(line, "the test registry did not start");
        _port = std::stoi(line->substr(line->find(announcement) + announcement.size()));
    }

    std::string RegistryProcess::url() const
    {
        return fmt::format("{}://127.0.0.1:{}", _secured ? "https" : "http", _port);
    }

    nlohmann::json RegistryProcess::events()
    {
        return get("/x-mxl-test/events");
    }

    nlohmann::json RegistryProcess::resources()
    {
        return get("/x-mxl-test/resources");
    }

    nlohmann::json RegistryProcess::waitForResources(std::function<bool(nlohmann::json const&)> const& done,
                                                     std::chrono::milliseconds timeout)
    {
        return waitFor([this] { return resources(); }, done, timeout, "resources");
    }

    nlohmann::json RegistryProcess::waitForEvents(std::function<bool(nlohmann::json const&)> const& done, std::chrono::milliseconds timeout)
    {
        return waitFor([this] { return events(); }, done, timeout, "events");
    }

    void RegistryProcess::kill()
    {
        _process->signal(SIGKILL);
        REQUIRE(_process->wait(std::chrono::seconds{10}).has_value());
    }

    nlohmann::json RegistryProcess::get(std::string const& path)
    {
        if (_secured)
        {
            setHttpsTrust(_secured->caFile);
            auto const got = httpGet(url() + path, std::chrono::seconds{10});
            if (auto const* failure = std::get_if<HttpFailure>(&got))
            {
                FAIL("GET ", path, " of the test registry failed: ", failure->reason);
            }
            return nlohmann::json::parse(std::get<std::string>(got));
        }
        httplib::Client client{"127.0.0.1", _port};
        client.set_read_timeout(10, 0);
        auto const result = client.Get(path.c_str());
        REQUIRE_MESSAGE(result, "GET ", path, " of the test registry failed");
        REQUIRE(result->status == 200);
        return nlohmann::json::parse(result->body);
    }
}
