// Small owners of libfabric handles for the raw baseline: each closes its fid once, in the order members are declared
// in reverse (so declare the fabric first and the endpoint last).
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_eq.h>

#include <cstdint>
#include <memory>
#include <string>

namespace mxl::bench::raw
{
    // Throws std::runtime_error naming the call, the object and libfabric's reason when `code` is negative.
    void check(long code, char const* call, std::string const& what);

    template <typename Handle>
    class Fid
    {
    public:
        Fid() = default;
        ~Fid()
        {
            reset();
        }

        Fid(Fid const&) = delete;
        Fid& operator=(Fid const&) = delete;

        Fid(Fid&& other) noexcept
            : _handle{other._handle}
        {
            other._handle = nullptr;
        }

        // Where a fi_* call stores a new handle; closes the previous one.
        Handle** out() noexcept
        {
            reset();
            return &_handle;
        }

        Handle* get() const noexcept
        {
            return _handle;
        }

        fid_t fid() const noexcept
        {
            return &_handle->fid;
        }

    private:
        void reset() noexcept
        {
            if (_handle != nullptr)
            {
                ::fi_close(&_handle->fid);
                _handle = nullptr;
            }
        }

        Handle* _handle = nullptr;
    };

    struct InfoDeleter
    {
        void operator()(fi_info* info) const noexcept
        {
            ::fi_freeinfo(info);
        }
    };
    using Info = std::unique_ptr<fi_info, InfoDeleter>;

    // Hints for RMA writes with remote CQ data on `provider`, in the endpoint type the mxl library uses for it
    // (tcp: connected FI_EP_MSG; shm: FI_EP_RDM).
    Info rmaHints(std::string const& provider);

    // fi_getinfo for those hints; `node`/`service` as in fi_getinfo (nullptr for none).
    Info getInfo(std::string const& provider, char const* node, char const* service, std::uint64_t flags);

    // Waits for `event` on `eq` (connection management), throwing on an error entry or after ten seconds.
    void awaitEvent(fid_eq* eq, std::uint32_t event, fi_eq_cm_entry& entry, std::string const& what);
}
