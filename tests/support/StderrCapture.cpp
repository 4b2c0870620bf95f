#include "StderrCapture.hpp"

#include <stdexcept>
#include <unistd.h>

namespace mxl::test
{
    StderrCapture::StderrCapture()
        : _file{std::tmpfile()}
    {
        if (_file == nullptr)
        {
            throw std::runtime_error{"StderrCapture: cannot create a temporary file"};
        }
        std::fflush(stderr);
        _saved = ::dup(STDERR_FILENO);
        if (_saved < 0 || ::dup2(::fileno(_file), STDERR_FILENO) < 0)
        {
            throw std::runtime_error{"StderrCapture: cannot redirect stderr"};
        }
    }

    StderrCapture::~StderrCapture()
    {
        restore();
        std::fclose(_file);
    }

    std::string StderrCapture::text()
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

    void StderrCapture::restore()
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
