// The on-disk contract (docs/memory-layout.md): what a flow directory holds, atomic creation under races, and clean
// errors for damaged flow files.
#include "FlowTestSupport.hpp"

#include "Domain.hpp"
#include "DomainWatcher.hpp"
#include "common/FlowPaths.hpp"
#include "Timing.hpp"

#include "common/FlowLayout.hpp"
#include "common/Status.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <barrier>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <thread>
#include <unistd.h>

using namespace mxl::test;
namespace fs = std::filesystem;

namespace
{
    mxl::Domain::CreatedOrOpened createFlow(mxl::Domain& domain, char const* file, std::string const& id = {})
    {
        auto const text = flowDefinition(file, id);
        auto const definition = mxl::parseFlowDefinition(text);
        return domain.createOrOpenFlow(definition, text, mxl::makeFlowConfig(definition, {}, mxl::defaultHistoryDurationNs));
    }

    std::size_t entriesIn(fs::path const& directory)
    {
        return static_cast<std::size_t>(std::distance(fs::directory_iterator{directory}, fs::directory_iterator{}));
    }

    std::size_t openDescriptors()
    {
        return entriesIn("/proc/self/fd");
    }
}

TEST_CASE("files: a discrete flow directory holds data, access, the definition verbatim and one file per grain")
{
    TempDomain temp;
    mxl::Domain domain{temp.path()};
    auto const flow = createFlow(domain, videoFlowFile);
    CHECK(flow.created);
    auto const directory = domain.flowDirectory(flowId(videoFlowFile));
    CHECK(fs::file_size(mxl::paths::dataFile(directory)) == 2064);
    CHECK(fs::file_size(mxl::paths::accessFile(directory)) == 0);
    CHECK(readFile(mxl::paths::flowDefinitionFile(directory)) == flowDefinition(videoFlowFile));
    CHECK_FALSE(fs::exists(mxl::paths::channelsFile(directory)));
    CHECK(entriesIn(mxl::paths::grainsDirectory(directory)) == 5);
    for (std::uint32_t slot = 0; slot < 5; ++slot)
    {
        CHECK(fs::file_size(mxl::paths::grainFile(directory, slot)) == 8192 + 5120 * 1080);
    }
    auto const& data = flow.files.data();
    struct stat status
    {
    };
    REQUIRE(::stat(mxl::paths::dataFile(directory).c_str(), &status) == 0);
    CHECK(data.state.inode == status.st_ino);
    CHECK(data.info.config.common.deviceIndex == -1);
    CHECK(data.info.runtime.headIndex == 0);
    CHECK(data.info.runtime.lastWriteTime > 0);
    CHECK((fs::status(directory).permissions() & fs::perms::others_exec) != fs::perms::none);
    CHECK(entriesIn(temp.path()) == 1);

    // Opened again: not created; the other kind with the same id is refused.
    CHECK_FALSE(createFlow(domain, videoFlowFile).created);
    CHECK_THROWS_AS(createFlow(domain, audioFlowFile, flowId(videoFlowFile)), mxl::Error);
    CHECK(entriesIn(temp.path()) == 1);
    CHECK(domain.listFlows().size() == 1);
    CHECK(domain.deleteFlow(flowId(videoFlowFile)));
    CHECK_FALSE(domain.deleteFlow(flowId(videoFlowFile)));
    CHECK(createFlow(domain, videoFlowFile).created);
}

TEST_CASE("files: a ring larger than the domain's filesystem is refused before anything is allocated, naming both sizes")
{
    TempDomain temp;
    mxl::Domain domain{temp.path()};
    auto const text = flowDefinition(videoFlowFile);
    auto const definition = mxl::parseFlowDefinition(text);
    struct statvfs room
    {
    };
    REQUIRE(::statvfs(temp.path().c_str(), &room) == 0);
    auto const totalBytes = std::uint64_t{room.f_blocks} * room.f_frsize;
    // A history long enough that the 1080p ring (about 5.5 MB a grain at 25 grains/s) needs twice the whole filesystem.
    auto const historyNs = totalBytes / (5'000'000ULL * 25) * 2 * 1'000'000'000ULL;
    auto const started = std::chrono::steady_clock::now();
    try
    {
        domain.createOrOpenFlow(definition, text, mxl::makeFlowConfig(definition, {}, historyNs));
        FAIL("the flow was created");
    }
    catch (mxl::Error const& error)
    {
        std::string const message = error.what();
        INFO(message);
        CHECK(error.status() == MXL_ERR_UNKNOWN);
        CHECK(message.find(fmt::format("flow {} needs ", flowId(videoFlowFile))) != std::string::npos);
        CHECK(message.find(" bytes for its ring, and the filesystem of '" + temp.str() + "' holds ") != std::string::npos);
        CHECK(message.find(" bytes in all") != std::string::npos);
    }
    // Refused from the sizes, not by filling the filesystem first.
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds{10});
    CHECK(entriesIn(temp.path()) == 0);
    CHECK(domain.listFlows().empty());
}

TEST_CASE("files: a continuous flow has a planar channels file and no access file or grains")
{
    TempDomain temp;
    mxl::Domain domain{temp.path()};
    auto const flow = createFlow(domain, audioFlowFile);
    auto const directory = domain.flowDirectory(flowId(audioFlowFile));
    CHECK(fs::file_size(mxl::paths::channelsFile(directory)) == 2 * 19456 * 4);
    CHECK_FALSE(fs::exists(mxl::paths::accessFile(directory)));
    CHECK_FALSE(fs::exists(mxl::paths::grainsDirectory(directory)));
    CHECK(flow.files.sampleWordBytes() == 4);
    CHECK_FALSE(createFlow(domain, audioFlowFile).created);
    CHECK_THROWS_AS(createFlow(domain, videoFlowFile, flowId(audioFlowFile)), mxl::Error);
    CHECK(entriesIn(temp.path()) == 1);
}

TEST_CASE("files: of writers racing to create one flow exactly one creates it and all map the same memory")
{
    TempDomain temp;
    constexpr int workers = 3;
    constexpr int rounds = 40;
    std::barrier sync{workers};
    std::atomic<int> creators[rounds] = {};
    std::atomic<int> agreements[rounds] = {};
    auto const work = [&](int worker)
    {
        mxl::Domain domain{temp.path()};
        for (int round = 0; round < rounds; ++round)
        {
            sync.arrive_and_wait();
            auto flow = createFlow(domain, dataFlowFile);
            creators[round] += flow.created ? 1 : 0;
            auto& header = *reinterpret_cast<mxl::layout::GrainHeader*>(flow.files.memory().grains[0]);
            header.padding[worker] = static_cast<std::uint8_t>(round + 1);
            sync.arrive_and_wait();
            auto agreed = true;
            for (int other = 0; other < workers; ++other)
            {
                agreed = agreed && header.padding[other] == static_cast<std::uint8_t>(round + 1);
            }
            agreements[round] += agreed ? 1 : 0;
            sync.arrive_and_wait();
            if (worker == 0)
            {
                domain.deleteFlow(flowId(dataFlowFile));
            }
        }
    };
    std::vector<std::thread> threads;
    for (int worker = 0; worker < workers; ++worker)
    {
        threads.emplace_back(work, worker);
    }
    for (auto& thread : threads)
    {
        thread.join();
    }
    for (int round = 0; round < rounds; ++round)
    {
        CAPTURE(round);
        CHECK(creators[round] == 1);
        CHECK(agreements[round] == workers);
    }
    // No temporary directory survives a lost race.
    CHECK(entriesIn(temp.path()) == 0);
}

TEST_CASE("files: damaged flows are clear errors, never crashes")
{
    DomainFixture fixture;
    mxlFlowWriter writer = nullptr;
    REQUIRE(mxlCreateFlowWriter(fixture.instance, flowDefinition(videoFlowFile).c_str(), nullptr, &writer, nullptr, nullptr) ==
            MXL_STATUS_OK);
    auto const id = flowId(videoFlowFile);
    auto const directory = fixture.domain.path() / (id + ".mxl-flow");
    auto* const other = mxlCreateInstance(fixture.domain.str().c_str(), nullptr);
    REQUIRE(other != nullptr);
    mxlFlowReader reader = nullptr;

    SUBCASE("truncated data file")
    {
        fs::resize_file(mxl::paths::dataFile(directory), 100);
        CHECK(mxlCreateFlowReader(other, id.c_str(), nullptr, &reader) == MXL_ERR_UNKNOWN);
    }
    SUBCASE("wrong version")
    {
        auto const fd = ::open(mxl::paths::dataFile(directory).c_str(), O_WRONLY);
        std::uint32_t const version = 2;
        REQUIRE(::pwrite(fd, &version, sizeof version, 0) == sizeof version);
        ::close(fd);
        CHECK(mxlCreateFlowReader(other, id.c_str(), nullptr, &reader) == MXL_ERR_UNKNOWN);
        CHECK(mxlCreateFlowWriter(other, flowDefinition(videoFlowFile).c_str(), nullptr, &writer, nullptr, nullptr) == MXL_ERR_UNKNOWN);
    }
    SUBCASE("truncated grain file")
    {
        fs::resize_file(mxl::paths::grainFile(directory, 3), 9000);
        CHECK(mxlCreateFlowReader(other, id.c_str(), nullptr, &reader) == MXL_ERR_UNKNOWN);
    }
    SUBCASE("missing grain file")
    {
        fs::remove(mxl::paths::grainFile(directory, 4));
        CHECK(mxlCreateFlowReader(other, id.c_str(), nullptr, &reader) == MXL_ERR_FLOW_NOT_FOUND);
    }
    SUBCASE("missing definition is still readable")
    {
        fs::remove(mxl::paths::flowDefinitionFile(directory));
        CHECK(mxlCreateFlowReader(other, id.c_str(), nullptr, &reader) == MXL_STATUS_OK);
    }
    SUBCASE("bad or unknown ids")
    {
        CHECK(mxlCreateFlowReader(other, "5fbec3b1-1b0f-417d-9059-8b94a47197e", nullptr, &reader) == MXL_ERR_INVALID_ARG);
        CHECK(mxlCreateFlowReader(other, "", nullptr, &reader) == MXL_ERR_INVALID_ARG);
        CHECK(mxlCreateFlowReader(other, nullptr, nullptr, &reader) == MXL_ERR_INVALID_ARG);
        CHECK(mxlCreateFlowReader(other, id.c_str(), nullptr, nullptr) == MXL_ERR_INVALID_ARG);
        CHECK(mxlCreateFlowReader(nullptr, id.c_str(), nullptr, &reader) == MXL_ERR_INVALID_ARG);
        CHECK(mxlCreateFlowReader(other, flowId(audioFlowFile).c_str(), nullptr, &reader) == MXL_ERR_FLOW_NOT_FOUND);
    }
    mxlDestroyInstance(other);
}

TEST_CASE("files: the domain watcher turns access-file touches into lastReadTime")
{
    TempDomain temp;
    CHECK_THROWS_AS(mxl::DomainWatcher{temp.path() / "missing"}, mxl::Error);
    mxl::Domain domain{temp.path()};
    auto const baseline = openDescriptors();
    {
        auto flow = createFlow(domain, videoFlowFile);
        auto const directory = domain.flowDirectory(flowId(videoFlowFile));
        auto& runtime = flow.files.data().info.runtime;
        mxl::DomainWatcher watcher{temp.path()};
        CHECK_THROWS_AS(watcher.addWriter(&runtime, temp.path() / "nothing.mxl-flow", flow.files.data()), mxl::Error);
        watcher.removeWriter(&watcher);
        watcher.addWriter(&runtime, directory, flow.files.data());
        int const second = 0;
        watcher.addWriter(&second, directory, flow.files.data());
        CHECK(watcher.writerCount() == 2);

        auto const touchAndWait = [&]
        {
            auto const before = runtime.lastReadTime;
            auto const fd = ::open(mxl::paths::accessFile(directory).c_str(), O_RDONLY);
            timespec const times[2] = {{0, UTIME_NOW}, {0, UTIME_OMIT}};
            ::futimens(fd, times);
            ::close(fd);
            auto const deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds{100};
            while (runtime.lastReadTime == before && std::chrono::steady_clock::now() < deadline)
            {
                std::this_thread::sleep_for(std::chrono::milliseconds{1});
            }
            return runtime.lastReadTime != before;
        };
        CHECK(touchAndWait());
        watcher.removeWriter(&runtime);
        CHECK(touchAndWait());
        watcher.stop();
        CHECK_FALSE(touchAndWait());
        watcher.removeWriter(&second);
        CHECK(watcher.writerCount() == 0);
    }
    CHECK(openDescriptors() == baseline);
}
