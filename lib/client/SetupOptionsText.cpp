#include "SetupOptionsText.hpp"

#include <common/AddressPrefix.hpp>
#include <common/Status.hpp>

#include <nlohmann/json.hpp>

#include <stdexcept>

namespace mxl::client
{
    std::vector<std::string> parseAllowedInitiators(std::string_view list)
    {
        std::vector<std::string> entries;
        std::size_t position = 0;
        while (position < list.size())
        {
            auto const start = list.find_first_not_of(", \t", position);
            if (start == std::string_view::npos)
            {
                break;
            }
            auto const end = std::min(list.find_first_of(", \t", start), list.size());
            auto const entry = list.substr(start, end - start);
            try
            {
                entries.push_back(AddressPrefix::parse(entry).text());
            }
            catch (Error const& error)
            {
                throw std::invalid_argument{error.what()};
            }
            position = end;
        }
        if (entries.empty())
        {
            throw std::invalid_argument{"no address or prefix given (e.g. 198.51.100.0/24); leave the setting out to admit any initiator"};
        }
        return entries;
    }

    std::string setupOptionsText(SetupSettings const& settings)
    {
        auto options = nlohmann::json::object();
        if (settings.transport)
        {
            options["transport"] = *settings.transport;
        }
        if (!settings.allowInitiators.empty())
        {
            options["allowInitiators"] = settings.allowInitiators;
        }
        if (settings.admissionKeyFile)
        {
            options["admissionKeyFile"] = *settings.admissionKeyFile;
        }
        if (settings.incarnationMark)
        {
            options["incarnationMark"] = true;
        }
        return options.empty() ? std::string{} : options.dump();
    }
}
