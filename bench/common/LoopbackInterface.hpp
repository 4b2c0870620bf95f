// The fabric interface both ends of a bench use: both processes run on this machine.
#pragma once

#include <mxl/fabrics.h>

#include <string>

namespace mxl::bench
{
    // `provider` ("tcp", "shm", ...) with remote writes, on 127.0.0.1 where the provider has addresses.
    mxlFabricsInterfaceConfig loopbackInterface(std::string const& provider);
}
