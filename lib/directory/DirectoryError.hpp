// A failed exchange with the ticket directory: unreachable, refused, or an answer that is not etcd's. The message
// names the endpoint, the operation and the key.
#pragma once

#include <stdexcept>

namespace mxl::directory
{
    class DirectoryError : public std::runtime_error
    {
    public:
        using std::runtime_error::runtime_error;
    };
}
