#include "Process.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <stdexcept>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <utility>

namespace mxl::test
{
    Process::Process(std::vector<std::string> argv, Input input)
    {
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) != 0)
        {
            throw std::runtime_error{std::string{"pipe: "} + std::strerror(errno)};
        }
        // A socket rather than a pipe, so that writing to a child that has gone fails (MSG_NOSIGNAL) instead of raising
        // SIGPIPE in the test.
        int inputFds[2] = {-1, -1};
        if (input == Input::Written && ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, inputFds) != 0)
        {
            throw std::runtime_error{std::string{"socketpair: "} + std::strerror(errno)};
        }
        std::vector<char*> args;
        for (auto& arg : argv)
        {
            args.push_back(arg.data());
        }
        args.push_back(nullptr);

        _pid = ::fork();
        if (_pid < 0)
        {
            throw std::runtime_error{std::string{"fork: "} + std::strerror(errno)};
        }
        if (_pid == 0)
        {
            ::dup2(fds[1], STDOUT_FILENO);
            if (inputFds[1] >= 0)
            {
                ::dup2(inputFds[1], STDIN_FILENO);
            }
            ::execv(args[0], args.data());
            std::fprintf(stderr, "exec %s: %s\n", args[0], std::strerror(errno));
            ::_exit(127);
        }
        ::close(fds[1]);
        _stdout = fds[0];
        if (inputFds[1] >= 0)
        {
            ::close(inputFds[1]);
            _stdin = inputFds[0];
        }
    }

    Process::~Process()
    {
        if (_stdin >= 0)
        {
            ::close(_stdin);
        }
        if (!_exitStatus && _pid > 0)
        {
            ::kill(_pid, SIGKILL);
            wait(std::chrono::seconds{5});
        }
        if (_stdout >= 0)
        {
            ::close(_stdout);
        }
    }

    bool Process::fill(std::chrono::milliseconds timeout)
    {
        if (_eof)
        {
            return false;
        }
        pollfd pfd{_stdout, POLLIN, 0};
        if (::poll(&pfd, 1, static_cast<int>(timeout.count())) <= 0)
        {
            return false;
        }
        char chunk[4096];
        auto const n = ::read(_stdout, chunk, sizeof chunk);
        if (n <= 0)
        {
            _eof = true;
            return false;
        }
        _buffer.append(chunk, static_cast<std::size_t>(n));
        return true;
    }

    std::optional<std::string> Process::readLine(std::chrono::milliseconds timeout)
    {
        auto const deadline = std::chrono::steady_clock::now() + timeout;
        while (true)
        {
            if (auto const newline = _buffer.find('\n'); newline != std::string::npos)
            {
                auto line = _buffer.substr(0, newline);
                _buffer.erase(0, newline + 1);
                return line;
            }
            auto const left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
            if (left.count() <= 0 || (!fill(left) && (_eof || std::chrono::steady_clock::now() >= deadline)))
            {
                return std::nullopt;
            }
        }
    }

    std::optional<std::string> Process::waitForLine(std::string const& needle, std::chrono::milliseconds timeout,
                                                    std::function<void(std::string const&)> const& onLine)
    {
        auto const deadline = std::chrono::steady_clock::now() + timeout;
        while (true)
        {
            auto const left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
            if (left.count() <= 0)
            {
                return std::nullopt;
            }
            auto line = readLine(left);
            if (!line)
            {
                return std::nullopt;
            }
            if (onLine)
            {
                onLine(*line);
            }
            if (line->find(needle) != std::string::npos)
            {
                return line;
            }
        }
    }

    std::string Process::drainOutput(std::chrono::milliseconds timeout)
    {
        auto const deadline = std::chrono::steady_clock::now() + timeout;
        while (std::chrono::steady_clock::now() < deadline &&
               fill(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now())))
        {
        }
        return std::exchange(_buffer, {});
    }

    bool Process::writeInput(std::string const& text)
    {
        std::size_t written = 0;
        while (_stdin >= 0 && written < text.size())
        {
            auto const n = ::send(_stdin, text.data() + written, text.size() - written, MSG_NOSIGNAL);
            if (n < 0 && errno == EINTR)
            {
                continue;
            }
            if (n <= 0)
            {
                return false;
            }
            written += static_cast<std::size_t>(n);
        }
        return _stdin >= 0;
    }

    void Process::signal(int signalNumber)
    {
        if (!_exitStatus && _pid > 0)
        {
            ::kill(_pid, signalNumber);
        }
    }

    std::optional<int> Process::wait(std::chrono::milliseconds timeout)
    {
        auto const deadline = std::chrono::steady_clock::now() + timeout;
        while (!_exitStatus)
        {
            int status = 0;
            auto const rc = ::waitpid(_pid, &status, WNOHANG);
            if (rc == _pid)
            {
                _exitStatus = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
                break;
            }
            if (std::chrono::steady_clock::now() >= deadline)
            {
                return std::nullopt;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds{5});
        }
        return _exitStatus;
    }
}
