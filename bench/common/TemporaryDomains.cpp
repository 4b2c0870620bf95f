#include "TemporaryDomains.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace mxl::bench
{
    TemporaryDomains::TemporaryDomains(std::string const& benchName, std::uint64_t historyDurationNs)
    {
        auto path = fmt::format("/dev/shm/{}-XXXXXX", benchName);
        if (::mkdtemp(path.data()) == nullptr)
        {
            throw std::runtime_error{fmt::format("cannot create the directory {} under /dev/shm: {}", path, std::strerror(errno))};
        }
        _root = path;
        for (auto const* end : {"target", "initiator"})
        {
            std::filesystem::create_directory(_root / end);
            std::ofstream{_root / end / "options.json"}
                << fmt::format(R"({{"urn:x-mxl:option:history_duration/v1.0":{}}})", historyDurationNs);
        }
    }

    TemporaryDomains::~TemporaryDomains()
    {
        std::error_code ignored;
        std::filesystem::remove_all(_root, ignored);
    }

    std::string TemporaryDomains::target() const
    {
        return (_root / "target").string();
    }

    std::string TemporaryDomains::initiator() const
    {
        return (_root / "initiator").string();
    }
}
