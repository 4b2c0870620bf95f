#include "SourceDomains.hpp"

#include <nlohmann/json.hpp>

#include <fstream>

namespace mxl::test
{
    SourceDomain::SourceDomain(std::string const& tag, std::uint64_t historyNs)
        : _directory{tag}
    {
        std::ofstream{_directory.path() / "options.json"} << nlohmann::json{{"urn:x-mxl:option:history_duration/v1.0", historyNs}}.dump();
    }

    std::string batchOptions(std::uint32_t samples)
    {
        return nlohmann::json{{"maxCommitBatchSizeHint", samples}, {"maxSyncBatchSizeHint", samples}}.dump();
    }

    OptionsFile::OptionsFile(std::string const& json)
    {
        std::ofstream{path()} << json;
    }
}
