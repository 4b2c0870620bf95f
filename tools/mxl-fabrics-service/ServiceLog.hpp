// One line per event on stdout. Under systemd (JOURNAL_STREAM is set) each line starts with the sd-daemon priority
// prefix ("<6>"), so that journalctl -p filters by level; on a terminal the level is spelled out instead.
#pragma once

#include "ServiceConfig.hpp"

#include <fmt/format.h>

#include <string_view>

namespace mxl::service::log
{
    void setLevel(LogLevel level) noexcept;
    bool enabled(LogLevel level) noexcept;
    void write(LogLevel level, std::string_view message);

    template <typename... Args>
    void debug(fmt::format_string<Args...> format, Args&&... args)
    {
        if (enabled(LogLevel::Debug))
        {
            write(LogLevel::Debug, fmt::format(format, std::forward<Args>(args)...));
        }
    }

    template <typename... Args>
    void info(fmt::format_string<Args...> format, Args&&... args)
    {
        if (enabled(LogLevel::Info))
        {
            write(LogLevel::Info, fmt::format(format, std::forward<Args>(args)...));
        }
    }

    template <typename... Args>
    void warning(fmt::format_string<Args...> format, Args&&... args)
    {
        write(LogLevel::Warning, fmt::format(format, std::forward<Args>(args)...));
    }
}
