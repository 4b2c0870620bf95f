#include "SharedArena.hpp"

#include <cerrno>
#include <sys/mman.h>
#include <system_error>

namespace mxl::bench
{
    SharedArena::SharedArena(std::size_t bytes)
        : _base{::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0)}
        , _bytes{bytes}
    {
        if (_base == MAP_FAILED)
        {
            throw std::system_error{errno, std::generic_category(), "mmap shared arena"};
        }
    }

    SharedArena::~SharedArena()
    {
        ::munmap(_base, _bytes);
    }
}
