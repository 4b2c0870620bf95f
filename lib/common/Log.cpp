#include "common/Log.hpp"

#include "common/PrintableText.hpp"

#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <strings.h>

namespace mxl::log
{
    namespace
    {
        constexpr std::array<std::string_view, 7> levelNames{"trace", "debug", "info", "warn", "error", "critical", "off"};

        Level parseLevel(char const* text) noexcept
        {
            if (text == nullptr)
            {
                return Level::Warn;
            }
            for (std::size_t i = 0; i < levelNames.size(); ++i)
            {
                if (::strcasecmp(text, std::string{levelNames[i]}.c_str()) == 0)
                {
                    return static_cast<Level>(i);
                }
            }
            return Level::Warn;
        }

        std::atomic<Sink> redirected{nullptr};
        // A threshold set by the program, which then decides (a service's log_level), or -1 for MXL_LOG_LEVEL's.
        std::atomic<int> chosenThreshold{-1};
    }

    Level threshold() noexcept
    {
        static Level const level = parseLevel(std::getenv("MXL_LOG_LEVEL"));
        auto const chosen = chosenThreshold.load();
        return chosen < 0 ? level : static_cast<Level>(chosen);
    }

    void setThreshold(Level level) noexcept
    {
        chosenThreshold.store(static_cast<int>(level));
    }

    bool enabled(Level level) noexcept
    {
        return level != Level::Off && level >= threshold();
    }

    void redirect(Sink sink) noexcept
    {
        redirected.store(sink);
    }

    void write(Level level, std::string_view raw) noexcept
    {
        // A message is one line, whatever text from outside it quotes.
        std::string escaped;
        if (needsEscaping(raw))
        {
            try
            {
                escaped = printableText(raw);
            }
            catch (...)
            {
                // Without memory for the escaped copy the line is dropped rather than written unescaped.
                return;
            }
        }
        auto const message = escaped.empty() ? raw : std::string_view{escaped};
        if (auto const sink = redirected.load(); sink != nullptr)
        {
            sink(level, message);
            return;
        }
        // One fwrite per line so lines of concurrent threads never interleave.
        static std::mutex mutex;
        auto const name = levelNames[static_cast<std::size_t>(level)];
        std::lock_guard lock{mutex};
        std::fprintf(stderr, "mxl %.*s: %.*s\n", static_cast<int>(name.size()), name.data(), static_cast<int>(message.size()),
                     message.data());
    }
}
