// A libmxl-fabrics target that receives into the flow of an MxlEnd, and the ticket its initiator needs to reach it.
#pragma once

#include "MxlEnd.hpp"

#include <client/FabricsHandles.hpp>

#include <mxl/fabrics.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mxl::bench
{
    class FabricsTarget
    {
    public:
        // `end` must outlive the target; `cqDepth` sizes its completion queue.
        FabricsTarget(MxlEnd const& end, std::string const& provider, std::uint32_t cqDepth);

        [[nodiscard]] std::vector<char> const& ticket() const noexcept
        {
            return _ticket;
        }

        [[nodiscard]] mxlFabricsTarget handle() const noexcept
        {
            return _target.get();
        }

        // The index of the next grain that arrived complete, or nullopt after waiting about 100 ms for none.
        std::optional<std::uint64_t> readGrain();

        // The head index of the next samples that arrived, or nullopt after waiting about 100 ms for none.
        std::optional<std::uint64_t> readSamplesHead();

    private:
        client::FabricsTarget _target;
        std::vector<char> _ticket;
    };
}
