#include "OutageLog.hpp"

#include "FailureKind.hpp"

namespace mxl
{
    OutageLog::OutageLog(std::size_t loggedKinds) noexcept
        : _loggedKinds{loggedKinds}
    {
    }

    bool OutageLog::admit(std::string const& reason, bool& last)
    {
        if (_kinds.size() >= _loggedKinds || !_kinds.insert(failureKind(reason)).second)
        {
            return false;
        }
        last = _kinds.size() == _loggedKinds;
        return true;
    }

    void OutageLog::recovered() noexcept
    {
        _kinds.clear();
    }
}
