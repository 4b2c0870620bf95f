#include "RawFabric.hpp"

#include <rdma/fi_cm.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>

#include <fmt/format.h>

#include <cstring>
#include <stdexcept>

namespace mxl::bench::raw
{
    void check(long code, char const* call, std::string const& what)
    {
        if (code < 0)
        {
            throw std::runtime_error{fmt::format("{} for {} failed: {} ({})", call, what, ::fi_strerror(static_cast<int>(-code)), code)};
        }
    }

    Info rmaHints(std::string const& provider)
    {
        Info hints{::fi_allocinfo()};
        if (!hints)
        {
            throw std::runtime_error{"fi_allocinfo returned nothing"};
        }
        hints->caps = FI_RMA | FI_WRITE | FI_REMOTE_WRITE;
        hints->ep_attr->type = provider == "shm" ? FI_EP_RDM : FI_EP_MSG;
        // Accept every registration mode the mxl library copes with; the endpoints read back which one applies.
        hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
        hints->fabric_attr->prov_name = ::strdup(provider.c_str());
        return hints;
    }

    Info getInfo(std::string const& provider, char const* node, char const* service, std::uint64_t flags)
    {
        auto const hints = rmaHints(provider);
        fi_info* found = nullptr;
        check(::fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), node, service, flags, hints.get(), &found), "fi_getinfo",
              fmt::format("provider {} node {} service {}", provider, node != nullptr ? node : "-", service != nullptr ? service : "-"));
        return Info{found};
    }

    void awaitEvent(fid_eq* eq, std::uint32_t event, fi_eq_cm_entry& entry, std::string const& what)
    {
        std::uint32_t received = 0;
        auto const code = ::fi_eq_sread(eq, &received, &entry, sizeof entry, 10'000, 0);
        if (code == -FI_EAVAIL)
        {
            fi_eq_err_entry error{};
            ::fi_eq_readerr(eq, &error, 0);
            throw std::runtime_error{fmt::format("{}: connection error {} ({})", what, ::fi_strerror(error.err), error.err)};
        }
        check(code, "fi_eq_sread", what);
        if (received != event)
        {
            throw std::runtime_error{fmt::format("{}: expected connection event {}, got {}", what, event, received)};
        }
    }
}
