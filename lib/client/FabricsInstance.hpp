// An mxl instance on a domain together with the fabrics instance built on it, released in the right order (the
// fabrics instance must go first). Header-only so that programs without fabrics never link libmxl-fabrics.
#pragma once

#include "FabricsBackend.hpp"

#include <mxl/fabrics.h>
#include <mxl/mxl.h>

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace mxl::client
{
    class FabricsInstance
    {
    public:
        // `backend` names the transport (libmxl-fabrics-<backend>.so); the library logs why it cannot be loaded.
        FabricsInstance(std::string const& domain, std::string const& backend)
            : _instance{::mxlCreateInstance(domain.c_str(), nullptr)}
        {
            if (_instance == nullptr)
            {
                throw std::runtime_error{fmt::format("cannot open MXL domain '{}'", domain)};
            }
            if (auto const status = ::mxlFabricsCreateInstance(_instance, fabricsInstanceOptions(backend).c_str(), &_fabrics);
                status != MXL_STATUS_OK)
            {
                ::mxlDestroyInstance(_instance);
                throw std::runtime_error{fmt::format("cannot create the fabrics instance with backend \"{}\" (mxlStatus {})", backend,
                                                     static_cast<int>(status))};
            }
        }

        ~FabricsInstance()
        {
            ::mxlFabricsDestroyInstance(_fabrics);
            ::mxlDestroyInstance(_instance);
        }

        FabricsInstance(FabricsInstance const&) = delete;
        FabricsInstance& operator=(FabricsInstance const&) = delete;

        [[nodiscard]] mxlInstance mxl() const noexcept
        {
            return _instance;
        }

        [[nodiscard]] mxlFabricsInstance fabrics() const noexcept
        {
            return _fabrics;
        }

    private:
        mxlInstance _instance;
        mxlFabricsInstance _fabrics = nullptr;
    };
}
