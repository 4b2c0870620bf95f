#include "fabrics/core/SetupOptions.hpp"

#include "common/Status.hpp"
#include "fabrics/core/OptionsObject.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>

namespace mxl::fabrics
{
    namespace
    {
        // The value an environment variable names, `unset` when it is empty or not set; `names` lists what it may say.
        template <typename Value, typename FromName>
        Value fromEnvironment(char const* variable, Value unset, FromName fromName, char const* names)
        {
            auto const* text = std::getenv(variable);
            if (text == nullptr || *text == '\0')
            {
                return unset;
            }
            auto const value = fromName(text);
            if (!value)
            {
                fail(MXL_ERR_INVALID_ARG, "{} must be {}, not \"{}\"", variable, names, text);
            }
            return *value;
        }
    }

    Transport SetupOptions::defaultTransport()
    {
        return fromEnvironment("MXL_FABRICS_TRANSPORT", Transport::Auto, transportFromName, "rma, msg or auto");
    }

    DevicePayloads SetupOptions::defaultDevicePayloads()
    {
        return fromEnvironment("MXL_FABRICS_DEVICE_PAYLOADS", DevicePayloads::Auto, devicePayloadsFromName, "auto, direct or staged");
    }

    SetupOptions SetupOptions::parse(char const* text)
    {
        SetupOptions options;
        options.transport = defaultTransport();
        options.devicePayloads = defaultDevicePayloads();
        auto const json = parseOptionsObject(text, "options");
        if (auto const depth = json.find("cqDepth"); depth != json.end())
        {
            if (!depth->is_number())
            {
                fail(MXL_ERR_INVALID_ARG, "option cqDepth must be a number, not {}", depth->dump());
            }
            auto const value = depth->get<double>();
            if (!(value >= 1.0) || value > 1048576.0)
            {
                fail(MXL_ERR_INVALID_ARG, "option cqDepth must be between 1 and 1048576, not {}", depth->dump());
            }
            // Fractions are truncated, as in the reference.
            options.cqDepth = static_cast<std::size_t>(std::trunc(value));
        }
        if (auto const transport = json.find("transport"); transport != json.end())
        {
            auto const name = transport->is_string() ? transportFromName(transport->get<std::string>()) : std::nullopt;
            if (!name)
            {
                fail(MXL_ERR_INVALID_ARG, "option transport must be \"rma\", \"msg\" or \"auto\", not {}", transport->dump());
            }
            options.transport = *name;
        }
        if (auto const payloads = json.find("devicePayloads"); payloads != json.end())
        {
            auto const name = payloads->is_string() ? devicePayloadsFromName(payloads->get<std::string>()) : std::nullopt;
            if (!name)
            {
                fail(MXL_ERR_INVALID_ARG, "option devicePayloads must be \"auto\", \"direct\" or \"staged\", not {}", payloads->dump());
            }
            options.devicePayloads = *name;
        }
        if (auto const allowed = json.find("allowInitiators"); allowed != json.end())
        {
            if (!allowed->is_array() || allowed->empty())
            {
                fail(MXL_ERR_INVALID_ARG,
                     "option allowInitiators must be a non-empty array of addresses and prefixes (\"198.51.100.0/24\"), not {}; leave it "
                     "out to admit any initiator",
                     allowed->dump());
            }
            std::vector<AddressPrefix> prefixes;
            for (auto const& entry : *allowed)
            {
                if (!entry.is_string())
                {
                    fail(MXL_ERR_INVALID_ARG, "option allowInitiators: {} is not a string naming an address or prefix", entry.dump());
                }
                try
                {
                    prefixes.push_back(AddressPrefix::parse(entry.get<std::string>()));
                }
                catch (Error const& e)
                {
                    fail(MXL_ERR_INVALID_ARG, "option allowInitiators: {}", e.what());
                }
            }
            options.allowInitiators = std::move(prefixes);
        }
        if (auto const keyFile = json.find("admissionKeyFile"); keyFile != json.end())
        {
            if (!keyFile->is_string())
            {
                fail(MXL_ERR_INVALID_ARG, "option admissionKeyFile must be the path of a ticket key file, not {}", keyFile->dump());
            }
            try
            {
                options.admissionKeys = signing::loadSigningKeys(keyFile->get<std::string>());
            }
            catch (signing::KeyFileError const& e)
            {
                fail(MXL_ERR_INVALID_ARG, "option admissionKeyFile: {}", e.what());
            }
        }
        if (auto const mark = json.find("incarnationMark"); mark != json.end())
        {
            if (!mark->is_boolean())
            {
                fail(MXL_ERR_INVALID_ARG, "option incarnationMark must be true or false, not {}", mark->dump());
            }
            options.incarnationMark = mark->get<bool>();
        }
        return options;
    }
}
