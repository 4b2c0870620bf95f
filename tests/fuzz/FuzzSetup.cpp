#include "FuzzEntry.hpp"

#include <cstdlib>

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    // Every rejected input would log a line: at libFuzzer's rate that is most of the run time and floods the terminal.
    // Set before the first log call, because the library reads the level once. An explicit MXL_LOG_LEVEL still wins.
    ::setenv("MXL_LOG_LEVEL", "off", 0);
    return 0;
}
