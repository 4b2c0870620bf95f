// The options JSON of mxlFabricsTargetSetup and mxlFabricsInitiatorSetup as the tools build it from their settings,
// and the one setting whose text needs reading first: the allowed initiators.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mxl::tools
{
    // Addresses and prefixes separated by commas or spaces ("198.51.100.0/24, 192.0.2.7"), each checked; throws
    // std::invalid_argument naming the entry and what is wrong with it, or that the list is empty.
    [[nodiscard]] std::vector<std::string> parseAllowedInitiators(std::string_view list);

    // "" when neither is given (the library's defaults).
    [[nodiscard]] std::string setupOptionsText(std::optional<std::string> const& transport,
                                               std::vector<std::string> const& allowInitiators);
}
