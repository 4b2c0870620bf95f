// The one idiom for the C API's handles: a handle with the owner its release call needs, released when it goes out of
// scope (also when an error unwinds), movable, never copied. The handle types of this layer derive from it and create
// their handle in their constructor; OwnedHandle's own two-argument constructor adopts a handle created elsewhere
// (FlowReader offers it too, for callers that report a failed open themselves). A handle that is a number (a batch)
// holds none at 0, as a pointer does at null. A handle whose release call takes no owner has std::nullptr_t for its owner.
// Declare handles in the order of creation (a flow before the fabrics target on it), so that they are released in reverse.
#pragma once

#include <type_traits>
#include <utility>

namespace mxl::client
{
    template <typename Owner, typename Handle, auto Release>
    class OwnedHandle
    {
    public:
        OwnedHandle() = default;

        OwnedHandle(Owner owner, Handle handle) noexcept
            : _owner{owner}
            , _handle{handle}
        {
        }

        ~OwnedHandle()
        {
            if (_handle == Handle{})
            {
                return;
            }
            if constexpr (std::is_null_pointer_v<Owner>)
            {
                Release(_handle);
            }
            else
            {
                Release(_owner, _handle);
            }
        }

        OwnedHandle(OwnedHandle&& other) noexcept
            : _owner{other._owner}
            , _handle{std::exchange(other._handle, Handle{})}
        {
        }

        OwnedHandle& operator=(OwnedHandle&& other) noexcept
        {
            std::swap(_owner, other._owner);
            std::swap(_handle, other._handle);
            return *this;
        }

        OwnedHandle(OwnedHandle const&) = delete;
        OwnedHandle& operator=(OwnedHandle const&) = delete;

        [[nodiscard]] Handle get() const noexcept
        {
            return _handle;
        }

    private:
        Owner _owner{};
        Handle _handle{};
    };
}
