#include "ChildProcess.hpp"

#include "InterruptFlag.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <fstream>
#include <iterator>
#include <poll.h>
#include <stdexcept>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <utility>

namespace mxl::bench::capacity
{
    namespace
    {
        constexpr auto outputPollInterval = std::chrono::milliseconds{100};

        // First thing in the child: SIGTERM when the bench dies (checked again after asking, since the bench may already
        // be gone), and a process group of its own so that the terminal's signals go to the bench alone.
        void detachFromParent(pid_t parent)
        {
            ::prctl(PR_SET_PDEATHSIG, SIGTERM);
            if (::getppid() != parent)
            {
                ::_exit(1);
            }
            ::setpgid(0, 0);
        }

        [[noreturn]] void throwErrno(std::string const& what)
        {
            throw std::runtime_error{fmt::format("{}: {}", what, std::strerror(errno))};
        }

        // Between fork and exec only async-signal-safe calls are allowed: write(2), not stdio.
        void writeRaw(char const* text)
        {
            if (::write(STDERR_FILENO, text, std::strlen(text)) < 0)
            {
                return;
            }
        }
    }

    ChildProcess::ChildProcess(std::string name, std::vector<std::string> const& argv, std::filesystem::path stderrFile)
        : _name{std::move(name)}
        , _stderrFile{std::move(stderrFile)}
    {
        std::vector<char*> arguments;
        for (auto const& argument : argv)
        {
            arguments.push_back(const_cast<char*>(argument.c_str()));
        }
        arguments.push_back(nullptr);

        int pipeFds[2];
        if (::pipe2(pipeFds, O_CLOEXEC) != 0)
        {
            throwErrno(fmt::format("creating the stdout pipe of {}", _name));
        }
        auto const errorFd = ::open(_stderrFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (errorFd < 0)
        {
            ::close(pipeFds[0]);
            ::close(pipeFds[1]);
            throwErrno(fmt::format("creating {} for the stderr of {}", _stderrFile.string(), _name));
        }
        auto const parent = ::getpid();
        _pid = ::fork();
        if (_pid == 0)
        {
            detachFromParent(parent);
            ::dup2(pipeFds[1], STDOUT_FILENO);
            ::dup2(errorFd, STDERR_FILENO);
            ::execv(arguments[0], arguments.data());
            writeRaw("mxl-fabrics-capacity-bench: cannot execute ");
            writeRaw(arguments[0]);
            writeRaw("\n");
            ::_exit(127);
        }
        auto const forkError = errno;
        ::close(pipeFds[1]);
        ::close(errorFd);
        if (_pid < 0)
        {
            ::close(pipeFds[0]);
            errno = forkError;
            throwErrno(fmt::format("fork for {}", _name));
        }
        _stdout = pipeFds[0];
        ::fcntl(_stdout, F_SETFL, O_NONBLOCK);
    }

    ChildProcess::ChildProcess(std::string name, std::function<int()> const& body)
        : _name{std::move(name)}
    {
        // Whatever stdio holds would otherwise be printed twice, once by the child at its exit.
        std::fflush(stdout);
        std::fflush(stderr);
        auto const parent = ::getpid();
        _pid = ::fork();
        if (_pid < 0)
        {
            throwErrno(fmt::format("fork for {}", _name));
        }
        if (_pid == 0)
        {
            detachFromParent(parent);
            int status = 1;
            try
            {
                status = body();
            }
            catch (std::exception const& e)
            {
                fmt::print(stderr, "mxl-fabrics-capacity-bench: {}: {}\n", _name, e.what());
            }
            std::fflush(stderr);
            ::_exit(status);
        }
    }

    ChildProcess::~ChildProcess()
    {
        if (_pid > 0)
        {
            stop(std::chrono::seconds{5});
        }
        if (_stdout >= 0)
        {
            ::close(_stdout);
        }
    }

    std::vector<std::string> ChildProcess::takeLines()
    {
        auto lines = std::exchange(_unreadLines, {});
        if (_stdout < 0)
        {
            return lines;
        }
        char chunk[4096];
        for (;;)
        {
            auto const got = ::read(_stdout, chunk, sizeof chunk);
            if (got > 0)
            {
                _partialLine.append(chunk, static_cast<std::size_t>(got));
                continue;
            }
            if (got < 0 && errno == EINTR)
            {
                continue;
            }
            // EAGAIN: nothing more for now; 0: the child closed stdout.
            break;
        }
        std::size_t start = 0;
        for (auto end = _partialLine.find('\n'); end != std::string::npos; end = _partialLine.find('\n', start))
        {
            lines.push_back(_partialLine.substr(start, end - start));
            start = end + 1;
        }
        _partialLine.erase(0, start);
        return lines;
    }

    std::string ChildProcess::awaitLine(std::string_view prefix, std::chrono::milliseconds timeout)
    {
        auto const deadline = std::chrono::steady_clock::now() + timeout;
        for (;;)
        {
            throwIfInterrupted();
            auto lines = takeLines();
            if (auto const match = std::ranges::find_if(lines, [prefix](std::string const& line) { return line.starts_with(prefix); });
                match != lines.end())
            {
                _unreadLines.assign(std::next(match), lines.end());
                return *match;
            }
            if (ended())
            {
                throw std::runtime_error{fmt::format("{} {} before printing '{}'{}", _name, describeEnd(), prefix, lastErrorLine())};
            }
            if (std::chrono::steady_clock::now() > deadline)
            {
                throw std::runtime_error{fmt::format("{} printed no '{}' within {} s{}", _name, prefix,
                                                     std::chrono::duration_cast<std::chrono::seconds>(timeout).count(), lastErrorLine())};
            }
            pollfd readable{_stdout, POLLIN, 0};
            ::poll(&readable, 1, static_cast<int>(outputPollInterval.count()));
        }
    }

    void ChildProcess::requireRunning()
    {
        if (ended())
        {
            throw std::runtime_error{fmt::format("{} {}{}", _name, describeEnd(), lastErrorLine())};
        }
    }

    bool ChildProcess::ended()
    {
        if (_waitStatus)
        {
            return true;
        }
        int status = 0;
        if (::waitpid(_pid, &status, WNOHANG) == _pid)
        {
            _waitStatus = status;
        }
        return _waitStatus.has_value();
    }

    void ChildProcess::terminate()
    {
        if (!ended())
        {
            ::kill(_pid, SIGTERM);
        }
    }

    std::string ChildProcess::stop(std::chrono::milliseconds grace)
    {
        if (!ended())
        {
            terminate();
            auto const deadline = std::chrono::steady_clock::now() + grace;
            while (!ended() && std::chrono::steady_clock::now() < deadline)
            {
                std::this_thread::sleep_for(std::chrono::milliseconds{10});
            }
        }
        if (!ended())
        {
            ::kill(_pid, SIGKILL);
            int status = 0;
            ::waitpid(_pid, &status, 0);
            _waitStatus = status;
            removeShmLeftovers();
        }
        return describeEnd();
    }

    std::string ChildProcess::describeEnd() const
    {
        if (!_waitStatus)
        {
            return "is still running";
        }
        if (WIFEXITED(*_waitStatus))
        {
            return fmt::format("exited with status {}", WEXITSTATUS(*_waitStatus));
        }
        if (WIFSIGNALED(*_waitStatus))
        {
            return fmt::format("was killed by signal {} ({})", WTERMSIG(*_waitStatus), ::strsignal(WTERMSIG(*_waitStatus)));
        }
        return fmt::format("ended with wait status {}", *_waitStatus);
    }

    std::string ChildProcess::lastErrorLine() const
    {
        if (_stderrFile.empty())
        {
            return {};
        }
        std::ifstream file{_stderrFile};
        std::string line;
        std::string last;
        while (std::getline(file, line))
        {
            if (!line.empty())
            {
                last = line;
            }
        }
        return last.empty() ? std::string{} : fmt::format(" (its last stderr line: {})", last);
    }

    // libmxl-fabrics names the shm regions of initiators and unnamed targets "mxl-<role>-<pid>-<n>..."; a process killed
    // with SIGKILL cannot remove its own.
    void ChildProcess::removeShmLeftovers() const
    {
        std::error_code ignored;
        for (auto const& entry : std::filesystem::directory_iterator{"/dev/shm", ignored})
        {
            auto const file = entry.path().filename().string();
            for (auto const* role : {"target", "initiator"})
            {
                if (file.starts_with(fmt::format("mxl-{}-{}-", role, _pid)))
                {
                    std::filesystem::remove(entry.path(), ignored);
                }
            }
        }
    }
}
