#include "FabricsTarget.hpp"

#include "CheckMxlStatus.hpp"
#include "LoopbackInterface.hpp"

#include <fmt/format.h>

namespace mxl::bench
{
    namespace
    {
        // Short enough for the runner to notice the end of a run promptly, as TargetTransport::readGrain promises.
        constexpr std::uint16_t readTimeoutMs = 100;
    }

    FabricsTarget::FabricsTarget(MxlEnd const& end, std::string const& provider, std::uint32_t cqDepth)
        : _target{end.fabrics()}
    {
        mxlFabricsTargetConfig targetConfig{};
        targetConfig.version = MXL_FABRICS_API_VERSION;
        targetConfig.interface = loopbackInterface(provider);
        targetConfig.writer = end.writer();
        auto const options = fmt::format(R"({{"cqDepth":{}}})", cqDepth);
        mxlFabricsTargetInfo info = nullptr;
        checkMxlStatus(mxlFabricsTargetSetup(_target.get(), &targetConfig, options.c_str(), &info),
                       fmt::format("mxlFabricsTargetSetup ({})", provider));
        client::OwnedTargetInfo const owned{info};

        std::size_t bytes = 0;
        checkMxlStatus(mxlFabricsTargetInfoToString(info, nullptr, &bytes), "mxlFabricsTargetInfoToString (size)");
        _ticket.resize(bytes);
        checkMxlStatus(mxlFabricsTargetInfoToString(info, _ticket.data(), &bytes), "mxlFabricsTargetInfoToString");
    }

    std::optional<std::uint64_t> FabricsTarget::readGrain()
    {
        std::uint64_t index = 0;
        if (!checkMxlReady(mxlFabricsTargetReadGrain(_target.get(), readTimeoutMs, &index), "mxlFabricsTargetReadGrain"))
        {
            return std::nullopt;
        }
        return index;
    }

    std::optional<std::uint64_t> FabricsTarget::readSamplesHead()
    {
        std::uint64_t head = 0;
        std::size_t count = 0;
        if (!checkMxlReady(mxlFabricsTargetReadSamples(_target.get(), readTimeoutMs, &head, &count), "mxlFabricsTargetReadSamples"))
        {
            return std::nullopt;
        }
        return head;
    }
}
