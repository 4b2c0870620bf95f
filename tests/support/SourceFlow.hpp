// The flow a source in the test process writes: created from its definition file in the source's domain, and known by
// the id the definition gives it. PatternSource and SampleSource write their patterns into it.
#pragma once

#include <client/MxlHandles.hpp>

#include <filesystem>
#include <string>

namespace mxl::test
{
    class SourceFlow
    {
    public:
        // `writerOptions`: the writer's flow options JSON (may be empty). Throws what client::FlowWriter throws when the
        // flow cannot be made.
        SourceFlow(std::string const& domain, std::filesystem::path const& definition, std::string const& writerOptions);

        SourceFlow(SourceFlow const&) = delete;
        SourceFlow& operator=(SourceFlow const&) = delete;

        [[nodiscard]] std::string const& flowId() const noexcept
        {
            return _flowId;
        }

    protected:
        client::Instance _instance;
        client::FlowWriter _writer;

    private:
        std::string _flowId;
    };
}
