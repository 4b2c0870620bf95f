#include "FabricsInitiator.hpp"

#include "CheckMxlStatus.hpp"
#include "LoopbackInterface.hpp"

#include <mxl/fabrics_state.h>

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <stdexcept>

namespace mxl::bench
{
    namespace
    {
        constexpr auto connectTimeout = std::chrono::seconds{30};
    }

    FabricsInitiator::FabricsInitiator(MxlEnd const& end, char const* flowId, std::string const& provider,
                                       std::optional<std::uint32_t> cqDepth, std::vector<char> const& ticket)
        : _reader{end.instance(), flowId}
        , _initiator{end.fabrics()}
    {

        mxlFabricsInitiatorConfig initiatorConfig{};
        initiatorConfig.version = MXL_FABRICS_API_VERSION;
        initiatorConfig.interface = loopbackInterface(provider);
        initiatorConfig.reader = _reader.get();
        auto const options = cqDepth ? fmt::format(R"({{"cqDepth":{}}})", *cqDepth) : std::string{};
        checkMxlStatus(mxlFabricsInitiatorSetup(_initiator.get(), &initiatorConfig, options.c_str()),
                       fmt::format("mxlFabricsInitiatorSetup ({})", provider));

        std::string const text{ticket.data(), ::strnlen(ticket.data(), ticket.size())};
        mxlFabricsTargetInfo info = nullptr;
        checkMxlStatus(mxlFabricsTargetInfoFromString(text.c_str(), &info), "mxlFabricsTargetInfoFromString");
        _target = client::OwnedTargetInfo{info};
        checkMxlStatus(mxlFabricsInitiatorAddTarget(_initiator.get(), info), "mxlFabricsInitiatorAddTarget");

        auto const deadline = std::chrono::steady_clock::now() + connectTimeout;
        while (!progress())
        {
            if (std::chrono::steady_clock::now() > deadline)
            {
                throw std::runtime_error{fmt::format("the mxl initiator did not connect to its target over {} within 30 s", provider)};
            }
        }
    }

    bool FabricsInitiator::transferGrain(std::uint64_t index, std::uint16_t totalSlices)
    {
        return checkMxlReady(mxlFabricsInitiatorTransferGrain(_initiator.get(), index, 0, totalSlices), "mxlFabricsInitiatorTransferGrain");
    }

    bool FabricsInitiator::transferSamples(std::uint64_t head, std::size_t count)
    {
        return checkMxlReady(mxlFabricsInitiatorTransferSamples(_initiator.get(), head, count), "mxlFabricsInitiatorTransferSamples");
    }

    bool FabricsInitiator::progress()
    {
        return checkMxlReady(mxlFabricsInitiatorMakeProgressNonBlocking(_initiator.get()), "mxlFabricsInitiatorMakeProgressNonBlocking");
    }

    bool FabricsInitiator::progressBlocking(std::uint16_t timeoutMs)
    {
        return checkMxlReady(mxlFabricsInitiatorMakeProgressBlocking(_initiator.get(), timeoutMs),
                             "mxlFabricsInitiatorMakeProgressBlocking");
    }

    std::uint64_t FabricsInitiator::invalidated() const
    {
        mxlFabricsTargetCounters counters{};
        checkMxlStatus(mxlFabricsInitiatorGetTargetCounters(_initiator.get(), _target.get(), &counters),
                       "mxlFabricsInitiatorGetTargetCounters");
        return counters.transfersInvalidated;
    }
}
