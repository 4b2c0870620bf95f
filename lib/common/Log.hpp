// Logging for both libraries and the tools: one line per event on stderr, filtered by MXL_LOG_LEVEL.
#pragma once

#include <fmt/format.h>

#include <string_view>
#include <utility>

namespace mxl::log
{
    enum class Level
    {
        Trace,
        Debug,
        Info,
        Warn,
        Error,
        Critical,
        Off,
    };

    // The threshold from MXL_LOG_LEVEL (trace, debug, info, warn, error, critical, off), read once; warn when unset,
    // so that rejected input is explained without the user having to ask.
    Level threshold() noexcept;

    // The threshold from now on, in place of MXL_LOG_LEVEL's: for a program whose own setting decides (a service's
    // log_level), together with redirect().
    void setThreshold(Level level) noexcept;

    bool enabled(Level level) noexcept;

    // Writes one line to the sink: stderr, unless redirect() named another.
    void write(Level level, std::string_view message) noexcept;

    // Where write() sends its lines from now on (nullptr: stderr again). A fabrics backend module holds its own copy of
    // this code, and sends its lines through the host's callback so that they reach the host's sink.
    using Sink = void (*)(Level level, std::string_view message) noexcept;
    void redirect(Sink sink) noexcept;

    template <typename... Args>
    void emit(Level level, fmt::format_string<Args...> format, Args&&... args) noexcept
    {
        if (!enabled(level))
        {
            return;
        }
        try
        {
            write(level, fmt::format(format, std::forward<Args>(args)...));
        }
        catch (...)
        {
            write(level, "(log message could not be formatted)");
        }
    }

    // The entry point of one level: log::warn("...", args...) is emit(Level::Warn, "...", args...).
    template <Level level>
    struct LevelLog
    {
        template <typename... Args>
        void operator()(fmt::format_string<Args...> format, Args&&... args) const noexcept
        {
            emit(level, format, std::forward<Args>(args)...);
        }
    };

    inline constexpr LevelLog<Level::Trace> trace{};
    inline constexpr LevelLog<Level::Debug> debug{};
    inline constexpr LevelLog<Level::Info> info{};
    inline constexpr LevelLog<Level::Warn> warn{};
    inline constexpr LevelLog<Level::Error> error{};
}
