#include "DomainFlow.hpp"

namespace mxl::test
{
    DomainFlow::DomainFlow(std::string const& tag, std::string const& definition, std::string const& flowId)
        : domain{tag}
        , instance{domain.path()}
        , writer{instance, definition, {}, "'" + tag + "'"}
        , reader{instance, flowId}
    {
    }
}
