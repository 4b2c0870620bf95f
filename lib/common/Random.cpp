#include "common/Random.hpp"

#include <mutex>
#include <random>

namespace mxl
{
    std::uint64_t randomId()
    {
        static std::mutex mutex;
        static std::mt19937_64 generator{std::random_device{}()};
        std::lock_guard lock{mutex};
        return generator();
    }
}
