// Opening the flow mxlsrc reads. Which flow the properties name is checked at start, so that a wrong setting fails at
// once; the flow itself may not exist yet (a writer started after the pipeline creates it), and is then opened once it
// does.
#pragma once

#include "DomainInstance.hpp"
#include "ElementFailure.hpp"
#include "ReadFlow.hpp"
#include "SourceFlowName.hpp"

#include <cstdint>
#include <memory>
#include <string>

namespace mxl::gst
{
    struct SourceReading
    {
        SourceFlowName name;
        // Grain (video, data) or sample (audio) index to start at; 0: the head.
        std::uint64_t startIndex = 0;
        // Samples per audio buffer; 0: 10 ms of samples.
        std::uint32_t samplesPerBuffer = 0;
    };

    // The one flow property set, as a UUID; ElementFailure (settings) naming the property otherwise.
    SourceFlowName checkedSourceFlowName(SourceFlowIds const& ids);

    // The flow opened for reading, or nullptr while `domain` has no flow of that id. ElementFailure naming the flow and
    // what is wrong with it when it cannot be read (a format mxlsrc does not carry, a property that does not fit it).
    std::unique_ptr<ReadFlow> openSourceFlow(DomainInstance const& domain, SourceReading const& reading);

    // What to say about a flow that does not exist: "<property> "<id>" is not a flow of domain "<domain>"...".
    std::string missingFlowText(DomainInstance const& domain, SourceFlowName const& name);
}
