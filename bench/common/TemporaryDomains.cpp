#include "TemporaryDomains.hpp"

#include <fmt/format.h>

#include <fstream>

namespace mxl::bench
{
    TemporaryDomains::TemporaryDomains(std::string const& benchName, std::uint64_t historyDurationNs)
        : _root{benchName}
    {
        for (auto const* end : {"target", "initiator"})
        {
            std::ofstream{_root.subdirectory(end) / "options.json"}
                << fmt::format(R"({{"urn:x-mxl:option:history_duration/v1.0":{}}})", historyDurationNs);
        }
    }

    std::string TemporaryDomains::target() const
    {
        return (_root.path() / "target").string();
    }

    std::string TemporaryDomains::initiator() const
    {
        return (_root.path() / "initiator").string();
    }
}
