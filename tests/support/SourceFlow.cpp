#include "SourceFlow.hpp"

#include "TempDomain.hpp"

#include <nlohmann/json.hpp>

namespace mxl::test
{
    SourceFlow::SourceFlow(std::string const& domain, std::filesystem::path const& definition, std::string const& writerOptions)
        : _instance{domain}
        , _writer{_instance, readFile(definition), writerOptions, definition.string()}
        , _flowId{nlohmann::json::parse(readFile(definition)).at("id").get<std::string>()}
    {
    }
}
