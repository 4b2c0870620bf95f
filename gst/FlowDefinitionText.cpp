#include "FlowDefinitionText.hpp"

#include "ElementFailure.hpp"

#include <client/ClientError.hpp>
#include <client/FlowDefinitionText.hpp>

namespace mxl::gst
{
    std::string flowDefinitionText(mxlInstance instance, std::string const& flowId)
    {
        try
        {
            return client::readFlowDefinition(instance, flowId);
        }
        catch (client::ClientError const& error)
        {
            throw flowFailure(error.what());
        }
    }
}
