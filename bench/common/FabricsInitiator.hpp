// A libmxl-fabrics initiator that reads the flow of an MxlEnd and writes it to one target, connected on construction.
#pragma once

#include "MxlEnd.hpp"

#include <client/FabricsHandles.hpp>
#include <client/MxlHandles.hpp>

#include <mxl/fabrics.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mxl::bench
{
    class FabricsInitiator
    {
    public:
        // `end` must outlive the initiator and `flowId` name its flow; `cqDepth` nullopt leaves the completion queue to
        // the library. Returns once the target of `ticket` is connected: transfers to it before then would be dropped.
        FabricsInitiator(MxlEnd const& end, char const* flowId, std::string const& provider, std::optional<std::uint32_t> cqDepth,
                         std::vector<char> const& ticket);

        // The transfer calls start a write; false when the initiator has no room yet (call progress() and retry).
        bool transferGrain(std::uint64_t index, std::uint16_t totalSlices);
        bool transferSamples(std::uint64_t head, std::size_t count);

        // Reaps completions; true when nothing is outstanding.
        bool progress();
        // As progress, sleeping up to `timeoutMs` for a completion.
        bool progressBlocking(std::uint16_t timeoutMs);
        // Transfers the library announced lost to the target: their source changed before the target read them.
        [[nodiscard]] std::uint64_t invalidated() const;

    private:
        // Released in reverse: the target info, the initiator, the reader.
        client::FlowReader _reader;
        client::FabricsInitiator _initiator;
        client::OwnedTargetInfo _target;
    };
}
