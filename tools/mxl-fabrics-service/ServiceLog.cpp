#include "ServiceLog.hpp"

#include <common/Log.hpp>
#include <common/PrintableText.hpp>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace mxl::service::log
{
    namespace
    {
        std::atomic<LogLevel> threshold{LogLevel::Info};
        // The HTTP thread logs too; whole lines must not interleave.
        std::mutex lineMutex;

        bool toJournal()
        {
            static bool const journal = std::getenv("JOURNAL_STREAM") != nullptr;
            return journal;
        }

        char const* prefix(LogLevel level)
        {
            switch (level)
            {
            case LogLevel::Debug:
                return toJournal() ? "<7>" : "debug: ";
            case LogLevel::Info:
                return toJournal() ? "<6>" : "";
            case LogLevel::Warning:
                return toJournal() ? "<4>" : "warning: ";
            }
            return "";
        }

        void libraryLine(mxl::log::Level level, std::string_view message) noexcept
        {
            auto const ours = level <= mxl::log::Level::Debug  ? LogLevel::Debug
                              : level == mxl::log::Level::Info ? LogLevel::Info
                                                               : LogLevel::Warning;
            try
            {
                write(ours, message);
            }
            catch (...)
            {
                // A line that cannot be written is lost, never the process.
            }
        }
    }

    void setLevel(LogLevel level) noexcept
    {
        threshold = level;
        // The NMOS and HTTP code of lib/ logs through the library log: its lines join the service's, at its level.
        mxl::log::setThreshold(level == LogLevel::Debug  ? mxl::log::Level::Debug
                               : level == LogLevel::Info ? mxl::log::Level::Info
                                                         : mxl::log::Level::Warn);
        mxl::log::redirect(&libraryLine);
    }

    bool enabled(LogLevel level) noexcept
    {
        return static_cast<int>(level) >= static_cast<int>(threshold.load());
    }

    void write(LogLevel level, std::string_view message)
    {
        // One message, one journal line: text a peer sent (a URL, an answer) cannot start a line of its own.
        auto const line = mxl::needsEscaping(message) ? mxl::printableText(message) : std::string{message};
        std::lock_guard lock{lineMutex};
        std::fputs(prefix(level), stdout);
        std::fwrite(line.data(), 1, line.size(), stdout);
        std::fputc('\n', stdout);
        std::fflush(stdout);
    }
}
