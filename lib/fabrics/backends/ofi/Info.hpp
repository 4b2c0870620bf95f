// fi_info: a list of interface descriptions from fi_getinfo, or one description duplicated out of such a list.
#pragma once

#include <rdma/fabric.h>

#include <memory>

namespace mxl::fabrics
{
    class Info
    {
    public:
        // An empty description to fill in as fi_getinfo hints.
        static Info hints();
        // fi_getinfo; throws with the call's status. `node` and `service` may be NULL.
        static Info query(char const* node, char const* service, std::uint64_t flags, Info const* hints, char const* purpose);
        // Takes ownership of a list the provider allocated (e.g. the info of a connection request).
        static Info adopt(fi_info* info) noexcept;
        // A copy of one entry, without the rest of its list.
        static Info duplicate(fi_info const* entry);

        [[nodiscard]] fi_info* get() const noexcept
        {
            return _info.get();
        }

        fi_info* operator->() const noexcept
        {
            return _info.get();
        }

        explicit operator bool() const noexcept
        {
            return _info != nullptr;
        }

    private:
        struct Free
        {
            void operator()(fi_info* info) const noexcept
            {
                fi_freeinfo(info);
            }
        };

        std::unique_ptr<fi_info, Free> _info;

        explicit Info(fi_info* info) noexcept
            : _info{info}
        {
        }
    };

    // The libfabric API version this library was written against (1.17 is the oldest it supports).
    inline constexpr std::uint32_t apiVersion = FI_VERSION(1, 17);
}
