#include "HostName.hpp"

#include <array>

#include <unistd.h>

namespace mxl::nmos
{
    std::string hostName()
    {
        std::array<char, 256> name{};
        if (::gethostname(name.data(), name.size() - 1) != 0 || name[0] == '\0')
        {
            return "localhost";
        }
        return name.data();
    }
}
