// The ownership every RAII class of this layer shares: one libfabric object, closed with fi_close exactly once.
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>

#include <utility>

namespace mxl::fabrics
{
    template <typename T>
    class Fid
    {
    public:
        Fid() = default;

        explicit Fid(T* object) noexcept
            : _object{object}
        {
        }

        ~Fid()
        {
            reset();
        }

        Fid(Fid&& other) noexcept
            : _object{std::exchange(other._object, nullptr)}
        {
        }

        Fid& operator=(Fid&& other) noexcept
        {
            if (this != &other)
            {
                reset();
                _object = std::exchange(other._object, nullptr);
            }
            return *this;
        }

        Fid(Fid const&) = delete;
        Fid& operator=(Fid const&) = delete;

        [[nodiscard]] T* get() const noexcept
        {
            return _object;
        }

        [[nodiscard]] fid_t fid() const noexcept
        {
            return &_object->fid;
        }

    private:
        T* _object = nullptr;

        void reset() noexcept
        {
            if (_object != nullptr)
            {
                // Close errors cannot be acted upon in a destructor; the provider logs them itself.
                static_cast<void>(fi_close(&std::exchange(_object, nullptr)->fid));
            }
        }
    };
}
