#include "MxlEnd.hpp"

namespace mxl::bench
{
    MxlEnd::MxlEnd(std::string const& domain, std::string const& flowDefinition, char const* writerOptions, std::string const& backend)
        : _instance{domain}
        , _fabrics{_instance.get(), backend}
        , _writer{_instance, flowDefinition, writerOptions == nullptr ? std::string{} : std::string{writerOptions}, "of the bench"}
    {
    }
}
