// The libraries say why they refuse a call in their log (stderr). A capture sends stderr into a temporary file while it
// lives, so that a program can show the reason (a bench's table) or a test can assert on log lines.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>

namespace mxl::client
{
    class LogCapture
    {
    public:
        // Throws std::system_error when stderr cannot be redirected.
        LogCapture();
        ~LogCapture();

        LogCapture(LogCapture const&) = delete;
        LogCapture& operator=(LogCapture const&) = delete;

        // Restores stderr and returns what was written.
        std::string text();

        // Restores stderr and returns the message of the last line logged ("mxl error: <message>" gives "<message>");
        // the whole text when nothing looks like a log line.
        std::string lastMessage();

    private:
        std::FILE* _file;
        int _saved = -1;

        void restore();
    };

    // How many times `part` occurs in `text`, not overlapping: the log lines a capture holds of one kind.
    [[nodiscard]] std::size_t occurrences(std::string const& text, std::string const& part);
}
