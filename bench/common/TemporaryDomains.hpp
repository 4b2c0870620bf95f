// A temporary directory under /dev/shm holding one mxl domain per end of a two-process bench; removed with the object.
#pragma once

#include "ScratchDirectory.hpp"

#include <cstdint>
#include <string>

namespace mxl::bench
{
    class TemporaryDomains
    {
    public:
        // `benchName` prefixes the directory; every domain's options.json sets its history (and so its ring sizes).
        TemporaryDomains(std::string const& benchName, std::uint64_t historyDurationNs);

        [[nodiscard]] std::string target() const;
        [[nodiscard]] std::string initiator() const;

    private:
        ScratchDirectory _root;
    };
}
