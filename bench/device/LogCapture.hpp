// The libraries say why they refuse a call only in their log (stderr); the device bench shows a refusal in its table,
// so it sends stderr into a temporary file around the calls that may refuse and takes the reason from there.
#pragma once

#include <cstdio>
#include <string>

namespace mxl::bench::device
{
    class LogCapture
    {
    public:
        LogCapture();
        ~LogCapture();

        LogCapture(LogCapture const&) = delete;
        LogCapture& operator=(LogCapture const&) = delete;

        // Restores stderr and returns the message of the last line logged ("mxl error: <message>" gives "<message>");
        // the whole text when nothing looks like a log line.
        std::string lastMessage();

    private:
        std::FILE* _file;
        int _saved = -1;

        void restore();
    };
}
