// An mxl instance on a domain together with the fabrics instance built on it, released in the right order (the
// fabrics instance goes first). Header-only so that programs without fabrics never link libmxl-fabrics.
#pragma once

#include "FabricsHandles.hpp"
#include "MxlHandles.hpp"

#include <mxl/fabrics.h>
#include <mxl/mxl.h>

#include <string>

namespace mxl::client
{
    class FabricsInstance
    {
    public:
        // `backend` names the transport (libmxl-fabrics-<backend>.so). Throws ClientError: DomainUnavailable for a
        // domain that cannot be opened, Failure when the fabrics instance cannot be created.
        FabricsInstance(std::string const& domain, std::string const& backend)
            : _instance{domain}
            , _fabrics{_instance.get(), backend}
        {
        }

        [[nodiscard]] mxlInstance mxl() const noexcept
        {
            return _instance.get();
        }

        [[nodiscard]] mxlFabricsInstance fabrics() const noexcept
        {
            return _fabrics.get();
        }

    private:
        Instance _instance;
        FabricsOnInstance _fabrics;
    };
}
