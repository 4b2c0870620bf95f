// A FIFO or another special file where a flow's data, grain or access file should be (put there by a damaged or
// hostile process of the domain): opening it never waits for a writer, a reader of that flow is refused at once naming
// the file (or, for the access file, works without touching it), and garbage collection leaves it alone.
#include "FlowTestSupport.hpp"

#include "RegularFile.hpp"
#include "common/FlowPaths.hpp"
#include "common/Status.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <fcntl.h>
#include <filesystem>
#include <future>
#include <optional>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using namespace mxl::test;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace
{
    void replaceWithFifo(fs::path const& file)
    {
        fs::remove(file);
        REQUIRE(::mkfifo(file.c_str(), 0600) == 0);
    }

    // `call`'s status, or nullopt when it waited on the FIFO for 10 s: then a writer opening the FIFO lets it go, so
    // that the test fails rather than hangs.
    template <typename Call>
    std::optional<mxlStatus> statusWithin(fs::path const& fifo, Call call)
    {
        auto result = std::async(std::launch::async, call);
        if (result.wait_for(10s) == std::future_status::ready)
        {
            return result.get();
        }
        auto const releaser = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
        result.wait();
        ::close(releaser);
        return std::nullopt;
    }
}

TEST_CASE("files: a FIFO in place of a flow's file never holds its opener, is refused naming it, and garbage collection leaves it")
{
    DomainFixture fixture;
    mxlFlowWriter writer = nullptr;
    REQUIRE(mxlCreateFlowWriter(fixture.instance, flowDefinition(videoFlowFile).c_str(), nullptr, &writer, nullptr, nullptr) ==
            MXL_STATUS_OK);
    REQUIRE(writeGrain(writer, 7) == MXL_STATUS_OK);
    auto const id = flowId(videoFlowFile);
    auto const directory = fixture.domain.path() / (id + ".mxl-flow");
    auto* const other = mxlCreateInstance(fixture.domain.str().c_str(), nullptr);
    REQUIRE(other != nullptr);
    mxlFlowReader reader = nullptr;
    auto const createReader = [&] { return mxlCreateFlowReader(other, id.c_str(), nullptr, &reader); };

    SUBCASE("data file")
    {
        auto const data = mxl::paths::dataFile(directory);
        replaceWithFifo(data);
        CHECK(statusWithin(data, createReader) == MXL_ERR_UNKNOWN);
        bool active = false;
        CHECK(statusWithin(data, [&] { return mxlIsFlowActive(other, id.c_str(), &active); }) == MXL_ERR_UNKNOWN);
        try
        {
            static_cast<void>(mxl::openRegularFile(data, O_RDONLY | O_CLOEXEC));
            FAIL("a FIFO was taken for a flow's file");
        }
        catch (mxl::Error const& e)
        {
            CHECK(std::string{e.what()} == data.string() + " is a FIFO rather than a regular file: not a flow's file (something other than "
                                                           "an MXL writer put it there)");
        }
    }
    SUBCASE("grain file")
    {
        auto const grain = mxl::paths::grainFile(directory, 3);
        replaceWithFifo(grain);
        CHECK(statusWithin(grain, createReader) == MXL_ERR_UNKNOWN);
    }
    SUBCASE("access file: the reader works, its reads unrecorded")
    {
        auto const access = mxl::paths::accessFile(directory);
        replaceWithFifo(access);
        REQUIRE(statusWithin(access, createReader) == MXL_STATUS_OK);
        mxlGrainInfo info{};
        std::uint8_t* payload = nullptr;
        CHECK(mxlFlowReaderGetGrain(reader, 7, 0, &info, &payload) == MXL_STATUS_OK);
        CHECK(info.index == 7);
        CHECK(mxlReleaseFlowReader(other, reader) == MXL_STATUS_OK);
    }
    SUBCASE("garbage collection: a stray flow directory whose data file is a FIFO stays, as does the live flow")
    {
        auto const stray = fixture.domain.path() / "0b7e1c52-3f7a-4d0e-9c1b-5a2f8e6d4c31.mxl-flow";
        fs::create_directory(stray);
        auto const data = mxl::paths::dataFile(stray);
        REQUIRE(::mkfifo(data.c_str(), 0600) == 0);
        CHECK(statusWithin(data, [&] { return mxlGarbageCollectFlows(other); }) == MXL_STATUS_OK);
        CHECK(fs::exists(data));
        CHECK(fs::exists(mxl::paths::dataFile(directory)));
    }
    CHECK(mxlReleaseFlowWriter(fixture.instance, writer) == MXL_STATUS_OK);
    mxlDestroyInstance(other);
}
