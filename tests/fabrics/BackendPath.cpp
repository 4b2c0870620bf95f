// Binaries that compile libmxl-fabrics's objects in (the white-box tests) look for fabrics backends in mxl-fabrics/
// beside themselves rather than beside libmxl-fabrics.so: point them at the build tree's backends before any test runs,
// unless the environment already names a directory.
#include <cstdlib>

namespace
{
    bool const backendPathSet = ::setenv("MXL_FABRICS_BACKEND_PATH", MXL_BINARY_DIR "/lib/fabrics/mxl-fabrics", 0) == 0;
}
