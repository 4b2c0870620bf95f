#include "client/LogCapture.hpp"

#include <cerrno>
#include <system_error>
#include <unistd.h>

namespace mxl::client
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

    std::string LogCapture::text()
    {
        restore();
        std::string result;
        std::rewind(_file);
        char buffer[512];
        for (std::size_t n; (n = std::fread(buffer, 1, sizeof(buffer), _file)) > 0;)
        {
            result.append(buffer, n);
        }
        return result;
    }

    std::string LogCapture::lastMessage()
    {
        auto all = text();
        while (!all.empty() && all.back() == '\n')
        {
            all.pop_back();
        }
        auto const lineStart = all.rfind('\n');
        auto const line = lineStart == std::string::npos ? all : all.substr(lineStart + 1);
        // The libraries' log lines read "mxl <level>: <message>".
        if (auto const colon = line.find(": "); line.starts_with("mxl ") && colon != std::string::npos)
        {
            return line.substr(colon + 2);
        }
        return all;
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

    std::size_t occurrences(std::string const& text, std::string const& part)
    {
        std::size_t count = 0;
        for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size()))
        {
            ++count;
        }
        return count;
    }
}
