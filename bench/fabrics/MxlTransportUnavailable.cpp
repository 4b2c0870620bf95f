// Stands in for MxlTransport.cpp in builds without libmxl-fabrics: the mxl rows are then reported as not measured.
#include "Transport.hpp"

#include <stdexcept>

namespace mxl::bench
{
    bool mxlTransportAvailable() noexcept
    {
        return false;
    }

    std::unique_ptr<TargetTransport> makeMxlTarget(TransportConfig const&)
    {
        throw std::logic_error{"this build has no libmxl-fabrics"};
    }

    std::unique_ptr<InitiatorTransport> makeMxlInitiator(TransportConfig const&, std::vector<char> const&)
    {
        throw std::logic_error{"this build has no libmxl-fabrics"};
    }
}
