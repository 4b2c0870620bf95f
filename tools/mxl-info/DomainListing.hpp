// List mode: the domain's description (domain_def.json, when present) and its flows grouped by the group of their
// first grouphint, each group with the mxl:// address that names all its flows; with `withLevels`, a level meter
// (LevelMeter.hpp) under each audio flow.
#pragma once

#include <client/MxlHandles.hpp>

#include <filesystem>

namespace mxl::tools::info
{
    void printDomainListing(client::Instance const& instance, std::filesystem::path const& domain, bool withLevels);
}
