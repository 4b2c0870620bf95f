// Anonymous shared memory that survives fork(): how a benchmark's child process hands its samples back.
#pragma once

#include <cstddef>
#include <new>

namespace mxl::bench
{
    class SharedArena
    {
    public:
        explicit SharedArena(std::size_t bytes);
        ~SharedArena();

        SharedArena(SharedArena const&) = delete;
        SharedArena& operator=(SharedArena const&) = delete;

        template <typename T>
        T* as() noexcept
        {
            return std::launder(static_cast<T*>(_base));
        }

    private:
        void* _base;
        std::size_t _bytes;
    };
}
