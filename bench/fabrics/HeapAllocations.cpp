#include "HeapAllocations.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

namespace
{
    std::atomic<std::uint64_t> allocations{0};

    void* allocate(std::size_t size)
    {
        allocations.fetch_add(1, std::memory_order_relaxed);
        // malloc(0) may return nullptr; operator new must not.
        if (auto* const memory = std::malloc(size == 0 ? 1 : size))
        {
            return memory;
        }
        throw std::bad_alloc{};
    }

    void* allocateAligned(std::size_t size, std::align_val_t alignment)
    {
        allocations.fetch_add(1, std::memory_order_relaxed);
        void* memory = nullptr;
        if (::posix_memalign(&memory, static_cast<std::size_t>(alignment), size == 0 ? 1 : size) != 0)
        {
            throw std::bad_alloc{};
        }
        return memory;
    }
}

namespace mxl::bench
{
    std::uint64_t heapAllocations() noexcept
    {
        return allocations.load(std::memory_order_relaxed);
    }
}

void* operator new(std::size_t size)
{
    return allocate(size);
}

void* operator new[](std::size_t size)
{
    return allocate(size);
}

void* operator new(std::size_t size, std::nothrow_t const&) noexcept
{
    try
    {
        return allocate(size);
    }
    catch (std::bad_alloc const&)
    {
        return nullptr;
    }
}

void* operator new[](std::size_t size, std::nothrow_t const&) noexcept
{
    return operator new(size, std::nothrow);
}

void* operator new(std::size_t size, std::align_val_t alignment)
{
    return allocateAligned(size, alignment);
}

void* operator new[](std::size_t size, std::align_val_t alignment)
{
    return allocateAligned(size, alignment);
}

void operator delete(void* memory) noexcept
{
    std::free(memory);
}

void operator delete[](void* memory) noexcept
{
    std::free(memory);
}

void operator delete(void* memory, std::size_t) noexcept
{
    std::free(memory);
}

void operator delete[](void* memory, std::size_t) noexcept
{
    std::free(memory);
}

void operator delete(void* memory, std::align_val_t) noexcept
{
    std::free(memory);
}

void operator delete[](void* memory, std::align_val_t) noexcept
{
    std::free(memory);
}

void operator delete(void* memory, std::size_t, std::align_val_t) noexcept
{
    std::free(memory);
}

void operator delete[](void* memory, std::size_t, std::align_val_t) noexcept
{
    std::free(memory);
}
