// The settings of a service as its sources gave them (command line first, then the config file), and the typed reading
// of them: every refusal names the source, the key and the value.
#pragma once

#include <boost/program_options/parsers.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mxl::service::config
{
    struct Setting
    {
        std::vector<std::string> values;
        std::string origin;
    };

    using Settings = std::map<std::string, Setting>;

    // Adds what one source gave; a key repeated within one source is an error unless it may repeat. Keys already
    // present from an earlier (higher-priority) source are kept.
    void collect(boost::program_options::parsed_options const& parsed, std::string const& origin, Settings& settings);

    // Reads typed values out of the settings; every failure (ConfigError) names origin, key and value.
    class ConfigReader
    {
    public:
        explicit ConfigReader(Settings settings);

        [[nodiscard]] bool has(std::string const& key) const;
        [[noreturn]] void fail(std::string const& key, std::string const& value, std::string_view expected) const;
        [[noreturn]] void missing(std::string const& key, std::string_view why) const;

        // Where a key that no source gave is said to be missing from.
        void setFallbackOrigin(std::string origin);
        [[nodiscard]] std::string const& fallbackOrigin() const;

        // The key's first value, or nullopt when no source gave it.
        [[nodiscard]] std::optional<std::string> text(std::string const& key) const;
        // Refused as missing, with `why`, when absent or empty.
        [[nodiscard]] std::string required(std::string const& key, std::string_view why) const;
        [[nodiscard]] std::vector<std::string> all(std::string const& key) const;
        [[nodiscard]] std::chrono::milliseconds milliseconds(std::string const& key, std::chrono::milliseconds fallback, std::int64_t min,
                                                             std::int64_t max) const;
        [[nodiscard]] std::chrono::seconds seconds(std::string const& key, std::chrono::seconds fallback, std::int64_t min,
                                                   std::int64_t max) const;
        [[nodiscard]] std::int64_t wholeNumber(std::string const& key, std::int64_t fallback, std::int64_t min, std::int64_t max,
                                               char const* unit) const;
        [[nodiscard]] std::string originOf(std::string const& key) const;

    private:
        Settings _settings;
        std::string _fallbackOrigin;
    };
}
