// The test registry (tests/nmos/registry.py) as a child process on 127.0.0.1: an AMWA IS-04 v1.3 Registration API that
// validates every body it is sent against AMWA's schemas. What it was sent and what it holds are read over HTTP.
#pragma once

#include "Process.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace mxl::test
{
    class RegistryProcess
    {
    public:
        // HTTPS with a certificate of the test's CA, and bearer tokens required on the Registration API (IS-10).
        struct Secured
        {
            std::string certificate;
            std::string key;
            std::string caFile;
        };

        // `port` 0: one the kernel chooses. A node without a heartbeat for `expiry` is garbage-collected.
        explicit RegistryProcess(int port = 0, std::chrono::milliseconds expiry = std::chrono::seconds{12},
                                 std::optional<Secured> secured = std::nullopt);

        [[nodiscard]] int port() const noexcept
        {
            return _port;
        }

        // What services are configured with: http://127.0.0.1:PORT, or https:// where secured.
        [[nodiscard]] std::string url() const;

        // Every request's outcome in order: {"kind": "post"|"heartbeat"|"delete"|"rejected"|"expired", "type", "id",
        // "status", "data"}.
        nlohmann::json events();

        // What it holds, [{"type", "data"}] in registration order.
        nlohmann::json resources();

        // Reads resources() until `done` holds for them; the last ones read. Fails the test at the deadline.
        nlohmann::json waitForResources(std::function<bool(nlohmann::json const&)> const& done, std::chrono::milliseconds timeout);

        // Reads events() until `done` holds for them; the last ones read. Fails the test at the deadline.
        nlohmann::json waitForEvents(std::function<bool(nlohmann::json const&)> const& done, std::chrono::milliseconds timeout);

        // SIGKILL, as a crashed registry: it answers nothing any more.
        void kill();

    private:
        std::unique_ptr<Process> _process;
        int _port = 0;
        std::optional<Secured> _secured;

        nlohmann::json get(std::string const& path);
    };
}
