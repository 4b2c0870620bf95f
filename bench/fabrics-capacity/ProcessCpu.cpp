#include "ProcessCpu.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unistd.h>

namespace mxl::bench::capacity
{
    namespace
    {
        // Fields of /proc/<pid>/stat counted from 1; the second (the command name in parentheses) may hold spaces, so
        // counting starts after its closing parenthesis, at field 3.
        constexpr int utimeField = 14;
        constexpr int firstFieldAfterName = 3;
    }

    double processCpuSeconds(pid_t pid)
    {
        auto const path = fmt::format("/proc/{}/stat", pid);
        std::ifstream file{path};
        std::string text;
        if (!std::getline(file, text))
        {
            throw std::runtime_error{fmt::format("cannot read {} (process {} has ended?)", path, pid)};
        }
        auto const nameEnd = text.rfind(')');
        if (nameEnd == std::string::npos)
        {
            throw std::runtime_error{fmt::format("{} has no ')' after the command name: '{}'", path, text)};
        }
        std::istringstream fields{text.substr(nameEnd + 1)};
        std::string field;
        for (int number = firstFieldAfterName; number < utimeField; ++number)
        {
            fields >> field;
        }
        unsigned long long userTicks = 0;
        unsigned long long systemTicks = 0;
        if (!(fields >> userTicks >> systemTicks))
        {
            throw std::runtime_error{
                fmt::format("{} has no utime and stime in fields {} and {}: '{}'", path, utimeField, utimeField + 1, text)};
        }
        static auto const ticksPerSecond = static_cast<double>(::sysconf(_SC_CLK_TCK));
        return static_cast<double>(userTicks + systemTicks) / ticksPerSecond;
    }

    CpuMeter::CpuMeter(std::vector<pid_t> pids)
        : _pids{std::move(pids)}
    {
    }

    void CpuMeter::start()
    {
        _startSeconds = total();
    }

    double CpuMeter::percentOfOneCore(double wallSeconds) const
    {
        return (total() - _startSeconds) / wallSeconds * 100.0;
    }

    double CpuMeter::total() const
    {
        double seconds = 0;
        for (auto const pid : _pids)
        {
            seconds += processCpuSeconds(pid);
        }
        return seconds;
    }
}
