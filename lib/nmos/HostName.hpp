// The machine's name as NMOS resources and MXL domain ids use it: node labels, name-based ids.
#pragma once

#include <string>

namespace mxl::nmos
{
    // gethostname(), or "localhost" where the machine has none.
    std::string hostName();
}
