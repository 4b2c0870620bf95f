// The options JSON of mxlFabricsTargetSetup and mxlFabricsInitiatorSetup as the tools build it from their settings,
// and the one setting whose text needs reading first: the allowed initiators.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mxl::client
{
    // Addresses and prefixes separated by commas or spaces ("198.51.100.0/24, 192.0.2.7"), each checked; throws
    // std::invalid_argument naming the entry and what is wrong with it, or that the list is empty.
    [[nodiscard]] std::vector<std::string> parseAllowedInitiators(std::string_view list);

    struct SetupSettings
    {
        std::optional<std::string> transport;
        // Target: empty admits any address.
        std::vector<std::string> allowInitiators;
        // The ticket key file whose key the target's initiators must prove they hold, or the initiator proves it holds;
        // none: no proof.
        std::optional<std::string> admissionKeyFile;
        // Initiator: connection requests name the ticket's incarnation, so that a stale ticket is refused.
        bool incarnationMark = false;
    };

    // "" when nothing is set (the library's defaults).
    [[nodiscard]] std::string setupOptionsText(SetupSettings const& settings);
}
