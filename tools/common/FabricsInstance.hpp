// An mxl instance on a domain together with the fabrics instance built on it, released in the right order (the
// fabrics instance must go first). Header-only so that tools without fabrics never link libmxl-fabrics.
#pragma once

#include <mxl/fabrics.h>
#include <mxl/mxl.h>

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace mxl::tools
{
    class FabricsInstance
    {
    public:
        explicit FabricsInstance(std::string const& domain)
            : _instance{::mxlCreateInstance(domain.c_str(), nullptr)}
        {
            if (_instance == nullptr)
            {
                throw std::runtime_error{fmt::format("cannot open MXL domain '{}'", domain)};
            }
            if (auto const status = ::mxlFabricsCreateInstance(_instance, nullptr, &_fabrics); status != MXL_STATUS_OK)
            {
                ::mxlDestroyInstance(_instance);
                throw std::runtime_error{fmt::format("cannot create the fabrics instance (mxlStatus {})", static_cast<int>(status))};
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
