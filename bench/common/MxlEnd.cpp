#include "MxlEnd.hpp"

#include "CheckMxlStatus.hpp"

#include <stdexcept>

namespace mxl::bench
{
    MxlEnd::MxlEnd(std::string const& domain, std::string const& flowDefinition, char const* writerOptions,
                   std::string const& fabricsOptions)
        : _instance{mxlCreateInstance(domain.c_str(), nullptr)}
    {
        if (_instance == nullptr)
        {
            throw std::runtime_error{"mxlCreateInstance failed for domain " + domain};
        }
        _releases.push([instance = _instance] { mxlDestroyInstance(instance); });
        checkMxlStatus(mxlFabricsCreateInstance(_instance, fabricsOptions.c_str(), &_fabrics), "mxlFabricsCreateInstance in " + domain);
        _releases.push([fabrics = _fabrics] { mxlFabricsDestroyInstance(fabrics); });
        checkMxlStatus(mxlCreateFlowWriter(_instance, flowDefinition.c_str(), writerOptions, &_writer, &_flowConfig, nullptr),
                       "mxlCreateFlowWriter in " + domain);
        _releases.push([instance = _instance, writer = _writer] { mxlReleaseFlowWriter(instance, writer); });
    }
}
