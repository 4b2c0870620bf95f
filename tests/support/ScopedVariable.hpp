// An environment variable set for one test: the test knobs (MXL_FABRICS_TRANSPORT, MXL_FABRICS_DEVICE_MEMORY_IS_HOST, ...).
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace mxl::test
{
    // Sets (or, with nullopt, unsets) an environment variable for the life of the object.
    class ScopedVariable
    {
    public:
        ScopedVariable(char const* name, std::optional<std::string> const& value)
            : _name{name}
        {
            if (auto const* old = std::getenv(name); old != nullptr)
            {
                _old = old;
            }
            value ? ::setenv(name, value->c_str(), 1) : ::unsetenv(name);
        }

        ~ScopedVariable()
        {
            _old ? ::setenv(_name, _old->c_str(), 1) : ::unsetenv(_name);
        }

        ScopedVariable(ScopedVariable const&) = delete;
        ScopedVariable& operator=(ScopedVariable const&) = delete;

    private:
        char const* _name;
        std::optional<std::string> _old;
    };
}
