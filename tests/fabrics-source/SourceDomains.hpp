// Domains of these tests: a temporary directory with an options.json that sets the history duration (and so the ring
// lengths), and writer-options files for flows whose batches should be larger than the 10 ms default.
#pragma once

#include "TempDomain.hpp"

#include <cstdint>
#include <string>

namespace mxl::test
{
    class SourceDomain
    {
    public:
        SourceDomain(std::string const& tag, std::uint64_t historyNs);

        [[nodiscard]] std::string str() const
        {
            return _directory.str();
        }

    private:
        TempDomain _directory;
    };

    // Writer options with both batch hints set to `samples`, as JSON text and as a file for the demo's --flow-options.
    std::string batchOptions(std::uint32_t samples);

    class OptionsFile
    {
    public:
        explicit OptionsFile(std::string const& json);

        [[nodiscard]] std::string path() const
        {
            return (_directory.path() / "writer-options.json").string();
        }

    private:
        TempDomain _directory{"audio-options"};
    };
}
