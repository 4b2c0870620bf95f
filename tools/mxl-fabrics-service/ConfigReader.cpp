#include "ConfigReader.hpp"

#include "ServiceConfig.hpp"

#include <fmt/format.h>

#include <charconv>

namespace mxl::service::config
{
    void collect(boost::program_options::parsed_options const& parsed, std::string const& origin, Settings& settings)
    {
        Settings own;
        for (auto const& option : parsed.options)
        {
            if (option.string_key.empty() || option.string_key == "config" || option.string_key == "help")
            {
                continue;
            }
            auto& setting = own[option.string_key];
            // A ticket repeats as fallbacks, a path as the redundant paths, and a ticket file once per path (checked later).
            bool const mayRepeat = option.string_key == "ticket" || option.string_key == "path" || option.string_key == "ticket_file";
            if (!setting.values.empty() && !mayRepeat)
            {
                throw ConfigError{fmt::format("{}: key '{}' is given twice ('{}' and '{}'); give it once", origin, option.string_key,
                                              setting.values.front(), option.value.empty() ? "" : option.value.front())};
            }
            setting.origin = origin;
            setting.values.insert(setting.values.end(), option.value.begin(), option.value.end());
        }
        for (auto& [key, setting] : own)
        {
            settings.try_emplace(key, std::move(setting));
        }
    }

    ConfigReader::ConfigReader(Settings settings)
        : _settings{std::move(settings)}
    {
    }

    bool ConfigReader::has(std::string const& key) const
    {
        return _settings.contains(key);
    }

    void ConfigReader::fail(std::string const& key, std::string const& value, std::string_view expected) const
    {
        throw ConfigError{fmt::format("{}: key '{}' value '{}': {}", originOf(key), key, value, expected)};
    }

    void ConfigReader::missing(std::string const& key, std::string_view why) const
    {
        throw ConfigError{fmt::format("{}: key '{}' is missing: {}", _fallbackOrigin, key, why)};
    }

    void ConfigReader::setFallbackOrigin(std::string origin)
    {
        _fallbackOrigin = std::move(origin);
    }

    std::string const& ConfigReader::fallbackOrigin() const
    {
        return _fallbackOrigin;
    }

    std::optional<std::string> ConfigReader::text(std::string const& key) const
    {
        auto const found = _settings.find(key);
        if (found == _settings.end())
        {
            return std::nullopt;
        }
        return found->second.values.front();
    }

    std::string ConfigReader::required(std::string const& key, std::string_view why) const
    {
        auto value = text(key);
        if (!value || value->empty())
        {
            missing(key, why);
        }
        return *value;
    }

    std::vector<std::string> ConfigReader::all(std::string const& key) const
    {
        auto const found = _settings.find(key);
        return found == _settings.end() ? std::vector<std::string>{} : found->second.values;
    }

    std::chrono::milliseconds ConfigReader::milliseconds(std::string const& key, std::chrono::milliseconds fallback, std::int64_t min,
                                                         std::int64_t max) const
    {
        return std::chrono::milliseconds{wholeNumber(key, fallback.count(), min, max, "milliseconds")};
    }

    std::chrono::seconds ConfigReader::seconds(std::string const& key, std::chrono::seconds fallback, std::int64_t min,
                                               std::int64_t max) const
    {
        return std::chrono::seconds{wholeNumber(key, fallback.count(), min, max, "seconds")};
    }

    std::int64_t ConfigReader::wholeNumber(std::string const& key, std::int64_t fallback, std::int64_t min, std::int64_t max,
                                           char const* unit) const
    {
        auto const value = text(key);
        if (!value)
        {
            return fallback;
        }
        std::int64_t number = 0;
        auto const [end, error] = std::from_chars(value->data(), value->data() + value->size(), number);
        if (error != std::errc{} || end != value->data() + value->size() || number < min || number > max)
        {
            fail(key, *value, fmt::format("expected a whole number of {} from {} to {}", unit, min, max));
        }
        return number;
    }

    std::string ConfigReader::originOf(std::string const& key) const
    {
        auto const found = _settings.find(key);
        return found == _settings.end() ? _fallbackOrigin : found->second.origin;
    }
}
