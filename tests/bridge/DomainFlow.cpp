#include "DomainFlow.hpp"

namespace mxl::test
{
    DomainFlow::DomainFlow(std::string const& tag, std::string const& definitionFile, std::string const& flowId)
        : domain{tag}
        , instance{domain.path()}
        , writer{instance, readFile(sourcePath(definitionFile)), {}, definitionFile}
        , reader{instance, flowId}
    {
    }
}
