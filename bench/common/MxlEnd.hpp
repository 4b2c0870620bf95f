// One end of a bench in its own process: its mxl instance, its fabrics instance and the writer of its flow.
#pragma once

#include "ReleaseStack.hpp"

#include <mxl/fabrics.h>
#include <mxl/flow.h>
#include <mxl/mxl.h>

#include <string>

namespace mxl::bench
{
    class MxlEnd
    {
    public:
        // `writerOptions` as mxlCreateFlowWriter takes them; nullptr for the defaults. `fabricsOptions` as
        // mxlFabricsCreateInstance takes them (the backend); empty for the defaults.
        MxlEnd(std::string const& domain, std::string const& flowDefinition, char const* writerOptions,
               std::string const& fabricsOptions = {});

        [[nodiscard]] mxlInstance instance() const noexcept
        {
            return _instance;
        }

        [[nodiscard]] mxlFabricsInstance fabrics() const noexcept
        {
            return _fabrics;
        }

        [[nodiscard]] mxlFlowWriter writer() const noexcept
        {
            return _writer;
        }

        [[nodiscard]] mxlFlowConfigInfo const& flowConfig() const noexcept
        {
            return _flowConfig;
        }

    private:
        ReleaseStack _releases;
        mxlInstance _instance = nullptr;
        mxlFabricsInstance _fabrics = nullptr;
        mxlFlowWriter _writer = nullptr;
        mxlFlowConfigInfo _flowConfig{};
    };
}
