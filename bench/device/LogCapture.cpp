#include "LogCapture.hpp"

#include <cerrno>
#include <system_error>
#include <unistd.h>

namespace mxl::bench::device
{
    LogCapture::LogCapture()
        : _file{std::tmpfile()}
    {
        if (_file == nullptr)
        {
            throw std::system_error{errno, std::generic_category(), "LogCapture: a temporary file for stderr"};
        }
        std::fflush(stderr);
        _saved = ::dup(STDERR_FILENO);
        if (_saved < 0 || ::dup2(::fileno(_file), STDERR_FILENO) < 0)
        {
            auto const error = errno;
            std::fclose(_file);
            throw std::system_error{error, std::generic_category(), "LogCapture: redirecting stderr"};
        }
    }

    LogCapture::~LogCapture()
    {
        restore();
        std::fclose(_file);
    }

    std::string LogCapture::lastMessage()
    {
        restore();
        std::string text;
        std::rewind(_file);
        char buffer[512];
        for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, _file)) > 0;)
        {
            text.append(buffer, n);
        }
        while (!text.empty() && text.back() == '\n')
        {
            text.pop_back();
        }
        auto const lineStart = text.rfind('\n');
        auto line = lineStart == std::string::npos ? text : text.substr(lineStart + 1);
        // Log.cpp writes "mxl <level>: <message>".
        if (auto const colon = line.find(": "); line.starts_with("mxl ") && colon != std::string::npos)
        {
            return line.substr(colon + 2);
        }
        return text;
    }

    void LogCapture::restore()
    {
        if (_saved >= 0)
        {
            std::fflush(stderr);
            ::dup2(_saved, STDERR_FILENO);
            ::close(_saved);
            _saved = -1;
        }
    }
}
