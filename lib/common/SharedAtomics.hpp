// Atomic access to fields of the shared-memory structs, which are plain C structs (the layout is a contract) and
// may be mapped read-only.
#pragma once

#include <atomic>

namespace mxl
{
    template <typename T>
    T loadAcquire(T const& field) noexcept
    {
        // atomic_ref needs a non-const referent, but a load never writes, so this is valid on a PROT_READ mapping.
        return std::atomic_ref<T>{const_cast<T&>(field)}.load(std::memory_order_acquire);
    }

    template <typename T>
    void storeRelease(T& field, T value) noexcept
    {
        std::atomic_ref<T>{field}.store(value, std::memory_order_release);
    }

    template <typename T>
    void storeRelaxed(T& field, T value) noexcept
    {
        std::atomic_ref<T>{field}.store(value, std::memory_order_relaxed);
    }
}
