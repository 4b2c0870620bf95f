// Real child processes for multi-process tests: start a program, read its stdout, wait with a deadline, kill it.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace mxl::test
{
    class Process
    {
    public:
        // Where the child's stdin comes from: the test's own, or a connection that writeInput feeds (closed, so the
        // child reads end of input, when this object goes).
        enum class Input
        {
            Inherited,
            Written,
        };

        // Starts `argv[0]` (a path) with stdout captured through a pipe; stderr is inherited so failures show in the
        // test log.
        explicit Process(std::vector<std::string> argv, Input input = Input::Inherited);
        ~Process();

        Process(Process const&) = delete;
        Process& operator=(Process const&) = delete;

        [[nodiscard]] pid_t pid() const noexcept
        {
            return _pid;
        }

        // The next line of stdout, or nullopt at end of output or when `timeout` passes first.
        std::optional<std::string> readLine(std::chrono::milliseconds timeout);

        // Reads lines until one contains `needle`; returns that line. Every line read, that one included, is handed to
        // `onLine` first, for a caller that keeps the whole output.
        std::optional<std::string> waitForLine(std::string const& needle, std::chrono::milliseconds timeout,
                                               std::function<void(std::string const&)> const& onLine = {});

        // Writes `text` to the child's stdin (Input::Written); false when the child no longer reads it.
        bool writeInput(std::string const& text);

        void signal(int signalNumber);

        // The exit status (or 128 + signal) once the process ended, or nullopt if it is still running at the deadline.
        std::optional<int> wait(std::chrono::milliseconds timeout);

        // Everything printed on stdout so far that readLine has not returned.
        std::string drainOutput(std::chrono::milliseconds timeout);

    private:
        pid_t _pid = -1;
        int _stdout = -1;
        int _stdin = -1;
        std::string _buffer;
        std::optional<int> _exitStatus;
        bool _eof = false;

        bool fill(std::chrono::milliseconds timeout);
    };
}
