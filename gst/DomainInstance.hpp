// The mxl instance an element works in: its domain folder, checked first so that a wrong `domain` property is reported
// with the path and what is wrong with it rather than as a NULL instance.
#pragma once

#include <client/MxlHandles.hpp>

#include <string>

namespace mxl::gst
{
    class DomainInstance
    {
    public:
        // Throws ElementFailure naming the domain when it is unset, absent, not a folder, or refused by libmxl.
        explicit DomainInstance(std::string const& domain);

        [[nodiscard]] mxlInstance get() const noexcept
        {
            return _instance.get();
        }

        [[nodiscard]] std::string const& domain() const noexcept
        {
            return _domain;
        }

    private:
        std::string _domain;
        client::Instance _instance;
    };
}
