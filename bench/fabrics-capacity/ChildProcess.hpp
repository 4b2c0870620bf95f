// A child process of the bench: a tool run from its binary, with stdout read line by line through a pipe and stderr kept
// in a file for error messages, or a function of this program run in a fork. Each child has a process group of its own
// (a Ctrl-C at the terminal reaches only the bench, which then stops its children in order), is stopped with SIGTERM and
// then SIGKILL when the object goes, and gets SIGTERM from the kernel should the bench die first.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace mxl::bench::capacity
{
    class ChildProcess
    {
    public:
        // Runs the program `argv[0]` (a path); `name` says which child this is in messages ("flow 2 initiator").
        ChildProcess(std::string name, std::vector<std::string> const& argv, std::filesystem::path stderrFile);
        // Runs `body` in a fork of this process; what it returns is the exit status.
        ChildProcess(std::string name, std::function<int()> const& body);
        ~ChildProcess();

        ChildProcess(ChildProcess const&) = delete;
        ChildProcess& operator=(ChildProcess const&) = delete;

        [[nodiscard]] pid_t pid() const noexcept
        {
            return _pid;
        }

        [[nodiscard]] std::string const& name() const noexcept
        {
            return _name;
        }

        // The read end of the stdout pipe (non-blocking); -1 for a forked function.
        [[nodiscard]] int stdoutFd() const noexcept
        {
            return _stdout;
        }

        // What stdout has now, without waiting, as complete lines.
        std::vector<std::string> takeLines();

        // Waits up to `timeout` for a stdout line starting with `prefix` (dropping the lines before it) and returns it; the
        // lines after it are kept for the next call. Throws naming the child when it ends first or the time runs out.
        std::string awaitLine(std::string_view prefix, std::chrono::milliseconds timeout);

        // Throws naming the child, how it ended and its last stderr line once it is no longer running.
        void requireRunning();

        // True once the child has ended (it is then reaped).
        bool ended();

        // SIGTERM unless it has ended; stop() then waits for it. Lets a group of children stop in parallel.
        void terminate();

        // SIGTERM, up to `grace` to end, then SIGKILL. Returns how it ended ("exited with status 0").
        std::string stop(std::chrono::milliseconds grace);

    private:
        std::string _name;
        pid_t _pid = -1;
        int _stdout = -1;
        std::filesystem::path _stderrFile;
        std::string _partialLine;
        // Complete lines read but not taken yet (those after the one awaitLine returned).
        std::vector<std::string> _unreadLines;
        std::optional<int> _waitStatus;

        std::string describeEnd() const;
        std::string lastErrorLine() const;
        void removeShmLeftovers() const;
    };
}
