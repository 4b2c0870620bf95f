// How libmxl-fabrics finds and enters a backend (docs/fabrics-backends.md): each refusal is one logged line naming the
// backend's file and the loader's or the backend's words, with the status the API documents.
#include "FabricsHarness.hpp"
#include "Process.hpp"
#include "TempDomain.hpp"
#include "fabrics/transport/fabrics_backend.h"
#include <client/LogCapture.hpp>

#include <mxl/fabrics.h>
#include <mxl/fabrics_backends.h>

#include <doctest/doctest.h>
#include <signal.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <vector>

using namespace std::chrono_literals;
using mxl::client::LogCapture;
using mxl::test::Process;
using mxl::test::TempDomain;

namespace
{
    std::string const fakes = MXL_FAKE_BACKENDS_DIR;

    // MXL_FABRICS_BACKEND_PATH for as long as it lives (unset when `value` is nullopt).
    class BackendPath
    {
    public:
        explicit BackendPath(std::optional<std::string> const& value)
        {
            if (auto const* previous = ::getenv("MXL_FABRICS_BACKEND_PATH"); previous != nullptr)
            {
                _previous = previous;
            }
            if (value)
            {
                ::setenv("MXL_FABRICS_BACKEND_PATH", value->c_str(), 1);
            }
            else
            {
                ::unsetenv("MXL_FABRICS_BACKEND_PATH");
            }
        }

        ~BackendPath()
        {
            if (_previous)
            {
                ::setenv("MXL_FABRICS_BACKEND_PATH", _previous->c_str(), 1);
            }
            else
            {
                ::unsetenv("MXL_FABRICS_BACKEND_PATH");
            }
        }

        BackendPath(BackendPath const&) = delete;
        BackendPath& operator=(BackendPath const&) = delete;

    private:
        std::optional<std::string> _previous;
    };

    struct Attempt
    {
        mxlStatus status = MXL_STATUS_OK;
        std::string logged;
    };

    // mxlFabricsCreateInstance with `options`, searching `path`; the instance is destroyed again when it was made.
    Attempt createInstance(std::optional<std::string> const& path, char const* options)
    {
        TempDomain domain{"loader"};
        auto* instance = mxlCreateInstance(domain.str().c_str(), nullptr);
        REQUIRE(instance != nullptr);
        BackendPath backendPath{path};
        Attempt attempt;
        mxlFabricsInstance fabrics = nullptr;
        {
            LogCapture capture;
            attempt.status = mxlFabricsCreateInstance(instance, options, &fabrics);
            attempt.logged = capture.text();
        }
        if (fabrics != nullptr)
        {
            CHECK(mxlFabricsDestroyInstance(fabrics) == MXL_STATUS_OK);
        }
        CHECK(mxlDestroyInstance(instance) == MXL_STATUS_OK);
        return attempt;
    }

    bool contains(std::string const& text, std::string const& part)
    {
        return text.find(part) != std::string::npos;
    }

    // Checks that mxlFabricsCreateInstance with `options`, searching `path`, fails with `expected` and logs each of `logged`.
    void checkRefused(std::optional<std::string> const& path, char const* options, mxlStatus expected,
                      std::initializer_list<std::string> logged)
    {
        auto const attempt = createInstance(path, options);
        CHECK(attempt.status == expected);
        INFO("logged: ", attempt.logged);
        for (auto const& part : logged)
        {
            CAPTURE(part);
            CHECK(contains(attempt.logged, part));
        }
    }

    // Runs `command` in sh with stderr joined to stdout; returns its exit status and everything it printed.
    std::pair<int, std::string> runShell(std::string const& command)
    {
        Process process{{"/bin/sh", "-c", command + " 2>&1"}};
        auto output = process.drainOutput(60s);
        auto const status = process.wait(60s);
        REQUIRE(status.has_value());
        return {*status, output};
    }

    // Runs `command` as runShell does and checks that it exits with `expected` and prints each of `printed`; returns what
    // it printed.
    std::string checkShell(std::string const& command, int expected, std::initializer_list<std::string> printed)
    {
        auto const [status, output] = runShell(command);
        INFO("output of ", command, ": ", output);
        CHECK(status == expected);
        for (auto const& part : printed)
        {
            CAPTURE(part);
            CHECK(contains(output, part));
        }
        return output;
    }
}

TEST_CASE("loader: a backend file that is no ELF object is refused with NO_FABRIC, its path and dlerror")
{
    checkRefused(fakes + "/not-elf", R"({"backend": "notelf"})", MXL_ERR_NO_FABRIC,
                 {"cannot load fabrics backend " + fakes + "/not-elf/libmxl-fabrics-notelf.so: ",
                  // dlerror()'s words for it.
                  "invalid ELF header"});
}

TEST_CASE("loader: a module without mxlFabricsBackendEntry is refused with NO_FABRIC, its path and dlerror")
{
    checkRefused(fakes + "/no-entry", R"({"backend": "noentry"})", MXL_ERR_NO_FABRIC,
                 {"fabrics backend " + fakes + "/no-entry/libmxl-fabrics-noentry.so has no mxlFabricsBackendEntry: ",
                  "undefined symbol: mxlFabricsBackendEntry"});
}

TEST_CASE("loader: a backend of ABI 2.0 is refused with UNSUPPORTED_OPERATION, naming both versions")
{
    checkRefused(fakes + "/abi2", R"({"backend": "abi2"})", MXL_ERR_UNSUPPORTED_OPERATION,
                 {"fabrics backend " + fakes + "/abi2/libmxl-fabrics-abi2.so implements backend ABI 2.0, this libmxl-fabrics needs 1.x"});
}

TEST_CASE("loader: a backend of ABI 1.1 (a table without domain_open_transport) is still loaded, and a shorter table is refused")
{
    auto const older = createInstance(fakes + "/abi11", R"({"backend": "abi11"})");
    INFO("logged: ", older.logged);
    CHECK(older.status == MXL_STATUS_OK);

    checkRefused(fakes + "/short", R"({"backend": "short"})", MXL_ERR_UNSUPPORTED_OPERATION,
                 {"fabrics backend " + fakes + "/short/libmxl-fabrics-short.so has a table of " +
                  std::to_string(MXL_FABRICS_BACKEND_TABLE_1_1_SIZE - sizeof(void*)) + " bytes, this libmxl-fabrics needs at least " +
                  std::to_string(MXL_FABRICS_BACKEND_TABLE_1_1_SIZE)});
}

TEST_CASE("loader: a backend whose entry fails is refused with NO_FABRIC and the backend's reason")
{
    checkRefused(
        fakes + "/failing", R"({"backend": "failing"})", MXL_ERR_NO_FABRIC,
        {// What the backend logged through mxlFabricsBackendHost.log reached the host's sink, as one line at its level.
         "mxl warn: fake transport: probing devices\n",
         "fabrics backend " + fakes + "/failing/libmxl-fabrics-failing.so failed to initialise: fake transport: no device answered"});
}

TEST_CASE("loader: an unknown backend names every directory searched and the environment variable")
{
    auto const path = fakes + "/abi2:" + fakes + "/failing";
    // The variable's directories in order, then mxl-fabrics/ beside libmxl-fabrics.so, then the install directory.
    auto const beside = (std::filesystem::path{MXL_FABRICS_LIBRARY}.parent_path() / "mxl-fabrics").string();
    checkRefused(path, R"({"backend": "nosuch"})", MXL_ERR_NO_FABRIC,
                 {"no fabrics backend \"nosuch\" (libmxl-fabrics-nosuch.so) in " + path + ":" + beside + ":",
                  "(MXL_FABRICS_BACKEND_PATH=" + path + ")"});
}

TEST_CASE("loader: backend names that are no file name and options that are no object are INVALID_ARG")
{
    checkRefused(std::nullopt, R"({"backend": "../ofi"})", MXL_ERR_INVALID_ARG,
                 {"fabrics backend name \"../ofi\" must be letters, digits, '-' or '_'"});
    checkRefused(std::nullopt, R"({"backend": 7})", MXL_ERR_INVALID_ARG,
                 {"instance option backend must be a string such as \"ofi\", not 7"});
    checkRefused(std::nullopt, "[1]", MXL_ERR_INVALID_ARG, {"instance options must be a JSON object, got: [1]"});
    // The parser's reason reaches the message: a repeated key is named, where nlohmann alone would keep the last one.
    checkRefused(std::nullopt, R"({"backend": "ofi", "backend": "ucx"})", MXL_ERR_INVALID_ARG,
                 {"instance options are not valid JSON (the key \"backend\" stands twice in one object)"});
    // A long text is quoted cut short, not whole.
    auto const longText = "{\"backend\": " + std::string(10000, '[');
    auto const attempt = createInstance(std::nullopt, longText.c_str());
    CHECK(attempt.status == MXL_ERR_INVALID_ARG);
    CHECK(contains(attempt.logged, "instance options are not valid JSON ("));
    CHECK(attempt.logged.size() < 1000);
}

TEST_CASE("loader: without options an instance uses the ofi module beside libmxl-fabrics.so")
{
    TempDomain domain{"loader"};
    auto* instance = mxlCreateInstance(domain.str().c_str(), nullptr);
    REQUIRE(instance != nullptr);
    mxlFabricsInstance fabrics = nullptr;
    {
        BackendPath unset{std::nullopt};
        REQUIRE(mxlFabricsCreateInstance(instance, nullptr, &fabrics) == MXL_STATUS_OK);
    }
    mxlFabricsBackendInfo info{};
    REQUIRE(mxlFabricsGetBackendInfo(fabrics, &info) == MXL_STATUS_OK);
    CHECK(std::string{info.name} == "ofi");
    CHECK(std::filesystem::path{info.path} == std::filesystem::path{MXL_OFI_BACKEND});
    CHECK(std::filesystem::path{info.path}.parent_path() == std::filesystem::path{MXL_FABRICS_LIBRARY}.parent_path() / "mxl-fabrics");
    CHECK(info.abiVersion == ((1u << 16) | 5u));
    CHECK(mxlFabricsGetBackendInfo(fabrics, nullptr) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFabricsDestroyInstance(fabrics) == MXL_STATUS_OK);
    CHECK(mxlDestroyInstance(instance) == MXL_STATUS_OK);
}

TEST_CASE("loader: MXL_FABRICS_BACKEND_PATH wins over the directory beside libmxl-fabrics.so (mxl-fabrics-info)")
{
    // A fresh process: this one may have loaded the real ofi already, and a backend is loaded once per process.
    checkShell(std::string{"MXL_FABRICS_BACKEND_PATH=/nonexistent:"} + fakes + "/shadow " + MXL_FABRICS_INFO + " --backend ofi", 1,
               {"fabrics backend " + fakes + "/shadow/libmxl-fabrics-ofi.so implements backend ABI 2.0",
                "mxl-fabrics-info: cannot create the fabrics instance with backend \"ofi\""});
}

TEST_CASE("loader: mxlFabricsGetBackends lists the first module of each name in search order, without loading any")
{
    std::vector<std::pair<std::string, std::string>> listed;
    {
        BackendPath path{fakes + "/shadow:" + fakes + "/failing:/nonexistent:" + fakes + "/abi2"};
        mxlFabricsBackendList* list = nullptr;
        REQUIRE(mxlFabricsGetBackends(&list) == MXL_STATUS_OK);
        REQUIRE(list != nullptr);
        for (std::size_t i = 0; i < list->count; ++i)
        {
            CHECK(list->backends[i].abiVersion == 0u);
            listed.emplace_back(list->backends[i].name, list->backends[i].path);
        }
        CHECK(mxlFabricsFreeBackendList(list) == MXL_STATUS_OK);
    }
    REQUIRE(listed.size() >= 3);
    CHECK(listed[0] == std::pair<std::string, std::string>{"ofi", fakes + "/shadow/libmxl-fabrics-ofi.so"});
    CHECK(listed[1] == std::pair<std::string, std::string>{"failing", fakes + "/failing/libmxl-fabrics-failing.so"});
    CHECK(listed[2] == std::pair<std::string, std::string>{"abi2", fakes + "/abi2/libmxl-fabrics-abi2.so"});
    std::set<std::string> names;
    for (auto const& [name, file] : listed)
    {
        CHECK_MESSAGE(names.insert(name).second, "listed twice: ", name);
    }
    // Nothing was entered: the failing backend's reason is only logged by an instance that loads it.
    checkRefused(fakes + "/failing", R"({"backend": "failing"})", MXL_ERR_NO_FABRIC, {"failed to initialise"});

    CHECK(mxlFabricsGetBackends(nullptr) == MXL_ERR_INVALID_ARG);
    CHECK(mxlFabricsFreeBackendList(nullptr) == MXL_ERR_INVALID_ARG);
}

TEST_CASE("loader: mxl-fabrics-info --all-backends lists each backend with its interfaces, and names the one it cannot load")
{
    checkShell(std::string{"MXL_FABRICS_BACKEND_PATH="} + fakes + "/failing " + MXL_FABRICS_INFO + " --all-backends -p tcp -n 127.0.0.1", 1,
               {"fabrics backend " + fakes + "/failing/libmxl-fabrics-failing.so failed to initialise",
                "backend failing " + fakes + "/failing/libmxl-fabrics-failing.so: not loaded\n",
                std::string{"backend ofi ABI 1.5 "} + MXL_OFI_BACKEND + "\ninterface tcp-0 node 127.0.0.1"});

    auto const healthy = checkShell(std::string{"env -u MXL_FABRICS_BACKEND_PATH "} + MXL_FABRICS_INFO + " --all-backends -p tcp", 0,
                                    {std::string{"backend ofi ABI 1.5 "} + MXL_OFI_BACKEND + "\n"});
    CHECK_MESSAGE(!contains(healthy, "not loaded"), healthy);

    checkShell(std::string{MXL_FABRICS_INFO} + " --all-backends --backend ofi", 2, {"--backend and --all-backends exclude each other"});
    // A bad command line exits 2, as every tool's does, apart from 1 for a backend or query that fails.
    checkShell(std::string{MXL_FABRICS_INFO} + " -p pigeon", 2, {"mxl-fabrics-info: unknown provider 'pigeon' (expected any, tcp"});
    checkShell(std::string{MXL_FABRICS_INFO} + " --frobnicate", 2, {"mxl-fabrics-info: ", "frobnicate", "(see --help)"});
}

TEST_CASE("loader: a copy of the build tree without the ofi module fails with the clear error, and works once it is back")
{
    TempDomain tree{"loader-tree"};
    auto const lib = tree.path() / "lib";
    std::filesystem::create_directories(lib);
    std::filesystem::copy_file(MXL_FABRICS_LIBRARY, lib / MXL_FABRICS_LIBRARY_SONAME);
    std::filesystem::copy_file(MXL_LIBRARY, lib / MXL_LIBRARY_SONAME);
    std::filesystem::copy_file(MXL_FABRICS_INFO, tree.path() / "mxl-fabrics-info");
    // LD_LIBRARY_PATH goes before the programs' RUNPATH into the original build tree.
    auto const command =
        "env -u MXL_FABRICS_BACKEND_PATH LD_LIBRARY_PATH=" + lib.string() + " " + (tree.path() / "mxl-fabrics-info").string();

    checkShell(command, 1,
               {"no fabrics backend \"ofi\" (libmxl-fabrics-ofi.so) in " + (lib / "mxl-fabrics").string() + ":",
                "(MXL_FABRICS_BACKEND_PATH=unset)"});

    std::filesystem::create_directories(lib / "mxl-fabrics");
    std::filesystem::copy_file(MXL_OFI_BACKEND, lib / "mxl-fabrics" / "libmxl-fabrics-ofi.so");
    checkShell(command + " -p tcp", 0, {"backend ofi ABI 1.5 " + (lib / "mxl-fabrics" / "libmxl-fabrics-ofi.so").string() + "\n"});
}

namespace
{
    extern "C" void programHandler(int) {}
}

TEST_CASE("loader: the program's signal handlers survive loading the ofi backend's libraries")
{
    // A fresh process: the libraries' constructors only run when the backend is first loaded. mxl-fabrics-demo sets
    // SIGINT and SIGTERM handlers before it creates its instance and prints its summary when one of them stops it.
    TempDomain domain{"loader-signal"};
    auto const definition = mxl::test::sourcePath("flows/v210_1080p59.94.json").string();
    Process target{{MXL_FABRICS_DEMO, "-d", domain.str(), "-f", definition, "-p", "tcp", "-n", "127.0.0.1", "-s", "0"}};
    REQUIRE(target.waitForLine("Target info:", 30s).has_value());
    target.signal(SIGINT);
    auto const rest = target.drainOutput(30s);
    CHECK(target.wait(30s) == std::optional<int>{0});
    INFO("output after SIGINT: ", rest);
    CHECK(contains(rest, "summary: received 0 grains, 0 bytes, 0 lost"));

    // In this process too, whether or not the backend was loaded already.
    struct sigaction mine
    {
    };
    mine.sa_handler = programHandler;
    sigemptyset(&mine.sa_mask);
    struct sigaction previous
    {
    };
    REQUIRE(::sigaction(SIGTERM, &mine, &previous) == 0);
    auto const attempt = createInstance(std::nullopt, nullptr);
    CHECK(attempt.status == MXL_STATUS_OK);
    struct sigaction now
    {
    };
    REQUIRE(::sigaction(SIGTERM, nullptr, &now) == 0);
    CHECK((now.sa_handler == &programHandler));
    REQUIRE(::sigaction(SIGTERM, &previous, nullptr) == 0);
}

TEST_CASE("loader: mxl-fabrics-info -v names CAP_HMEM: shm's FI_HMEM claim here, and every interface under the test knob")
{
    auto const info = std::string{"env -u MXL_FABRICS_DEVICE_MEMORY_IS_HOST "} + MXL_FABRICS_INFO + " --backend ofi -v";
    checkShell(info + " -p shm", 0,
               {"  capabilities: BLOCKING_OPERATIONS|REMOTE_WRITE|SEND_RECEIVE|HMEM\n", "    fi_hmem: true\n",
                "    device_payloads: registered directly where the device memory registers, else staged through pinned host memory\n"});

    checkShell(info + " -p tcp -n 127.0.0.1", 0,
               {"  capabilities: BLOCKING_OPERATIONS|REMOTE_WRITE|SEND_RECEIVE\n", "    fi_hmem: false\n",
                "    device_payloads: staged through pinned host memory\n"});

    checkShell(std::string{"MXL_FABRICS_DEVICE_MEMORY_IS_HOST=1 "} + MXL_FABRICS_INFO + " --backend ofi -v -p tcp -n 127.0.0.1", 0,
               {"  capabilities: BLOCKING_OPERATIONS|REMOTE_WRITE|SEND_RECEIVE|HMEM\n"});
}
