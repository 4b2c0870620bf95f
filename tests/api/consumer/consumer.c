/* A C program built against an installed mxl: it links, runs, and finds the library's version. */
#include <mxl/mxl.h>
#include <mxl/version.h>

#include <stdio.h>

int main(void)
{
    mxlVersionType version;
    if (mxlGetVersion(&version) != MXL_STATUS_OK || version.major != MXL_VERSION_MAJOR)
    {
        return 1;
    }
    printf("consumer linked against mxl %s\n", version.full);
    return 0;
}
