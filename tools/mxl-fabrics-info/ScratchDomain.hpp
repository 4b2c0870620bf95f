// A domain directory for as long as the tool runs: the fabrics library needs an mxl instance even to list
// interfaces, and a user who only asks "what can this host do" should not have to name one.
#pragma once

#include <string>

namespace mxl::fabricsinfo
{
    class ScratchDomain
    {
    public:
        // Creates $TMPDIR/mxl-fabrics-info.<pid> (TMPDIR defaults to /tmp); throws std::runtime_error.
        ScratchDomain();
        ~ScratchDomain();

        ScratchDomain(ScratchDomain const&) = delete;
        ScratchDomain& operator=(ScratchDomain const&) = delete;

        [[nodiscard]] std::string const& path() const noexcept
        {
            return _path;
        }

    private:
        std::string _path;
    };
}
