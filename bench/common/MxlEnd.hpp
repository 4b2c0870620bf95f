// One end of a bench in its own process: its mxl instance, its fabrics instance and the writer of its flow.
#pragma once

#include <client/FabricsHandles.hpp>
#include <client/MxlHandles.hpp>

#include <mxl/fabrics.h>
#include <mxl/flow.h>
#include <mxl/mxl.h>

#include <string>

namespace mxl::bench
{
    class MxlEnd
    {
    public:
        // `writerOptions` as mxlCreateFlowWriter takes them; nullptr for the defaults. `backend` names the fabrics
        // backend; empty for the library's default.
        MxlEnd(std::string const& domain, std::string const& flowDefinition, char const* writerOptions, std::string const& backend = {});

        [[nodiscard]] mxlInstance instance() const noexcept
        {
            return _instance.get();
        }

        [[nodiscard]] mxlFabricsInstance fabrics() const noexcept
        {
            return _fabrics.get();
        }

        [[nodiscard]] mxlFlowWriter writer() const noexcept
        {
            return _writer.get();
        }

        [[nodiscard]] mxlFlowConfigInfo const& flowConfig() const noexcept
        {
            return _writer.config();
        }

    private:
        // Released in reverse: the writer, the fabrics instance, the instance.
        client::Instance _instance;
        client::FabricsOnInstance _fabrics;
        client::FlowWriter _writer;
    };
}
