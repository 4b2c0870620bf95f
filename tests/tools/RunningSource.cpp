#include "RunningSource.hpp"

#include "ToolRun.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <sstream>

namespace mxl::test
{
    namespace
    {
        std::vector<std::string> commandLine(std::filesystem::path const& domain, std::vector<std::string> const& arguments)
        {
            std::vector<std::string> argv{testSourcePath().string(), "-d", domain.string()};
            argv.insert(argv.end(), arguments.begin(), arguments.end());
            return argv;
        }
    }

    RunningSource::RunningSource(std::filesystem::path const& domain, std::vector<std::string> const& arguments, std::size_t flowCount)
        : _process{commandLine(domain, arguments)}
    {
        while (_flowIds.size() < flowCount)
        {
            auto const line = _process.waitForLine("flow ", std::chrono::seconds{5});
            REQUIRE_MESSAGE(line.has_value(), "mxl-test-source announced ", _flowIds.size(), " of ", flowCount, " flows");
            std::istringstream words{*line};
            std::string keyword;
            std::string id;
            std::string mediaType;
            words >> keyword >> id >> mediaType;
            REQUIRE(keyword == "flow");
            _flowIds[mediaType] = id;
        }
    }

    void RunningSource::requireStats(std::chrono::milliseconds timeout)
    {
        REQUIRE(_process.waitForLine("stats", timeout).has_value());
    }

    std::string const& RunningSource::flowId(std::string const& mediaType) const
    {
        auto const it = _flowIds.find(mediaType);
        REQUIRE_MESSAGE(it != _flowIds.end(), "no flow of type ", mediaType, " was announced");
        return it->second;
    }

    FlowReaderFixture::FlowReaderFixture(std::filesystem::path const& domain, std::string const& flowId)
        : instance{mxlCreateInstance(domain.c_str(), nullptr)}
    {
        REQUIRE(instance != nullptr);
        REQUIRE(mxlCreateFlowReader(instance, flowId.c_str(), nullptr, &reader) == MXL_STATUS_OK);
    }

    FlowReaderFixture::~FlowReaderFixture()
    {
        mxlReleaseFlowReader(instance, reader);
        mxlDestroyInstance(instance);
    }

    mxlFlowInfo FlowReaderFixture::info() const
    {
        mxlFlowInfo flowInfo{};
        REQUIRE(mxlFlowReaderGetInfo(reader, &flowInfo) == MXL_STATUS_OK);
        return flowInfo;
    }
}
