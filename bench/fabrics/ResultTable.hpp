// The markdown table of one provider: raw and mxl rows per grain size, and the verdict against the targets.
#pragma once

#include "GrainFormat.hpp"
#include "TransferRun.hpp"

#include <optional>
#include <string>
#include <vector>

namespace mxl::bench
{
    // A measured row, or why it has no figures ("not measured: ...", or the error either process reported).
    struct MeasuredRow
    {
        std::optional<RowResult> result;
        std::string failure;
    };

    // libmxl-fabrics over one backend.
    struct BackendRow
    {
        std::string backend;
        MeasuredRow row;
    };

    struct SizeRows
    {
        GrainFormat format;
        MeasuredRow raw;
        std::vector<BackendRow> mxl;
    };

    // mxl >= 0.9x raw throughput; mxl CPU per GB <= 1.1x raw on each side.
    constexpr double throughputTarget = 0.9;
    constexpr double cpuTarget = 1.1;

    void printProviderTable(std::string const& provider, std::vector<SizeRows> const& rows);
}
