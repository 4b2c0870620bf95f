/* Every public header compiles as strict C17, and the layouts C programs see match the shared-memory contract. */
#include <mxl/dataformat.h>
#include <mxl/device.h>
#include <mxl/fabrics.h>
#include <mxl/fabrics_backends.h>
#include <mxl/fabrics_batch.h>
#include <mxl/fabrics_events.h>
#include <mxl/fabrics_state.h>
#include <mxl/flow.h>
#include <mxl/flowinfo.h>
#include <mxl/mxl.h>
#include <mxl/platform.h>
#include <mxl/rational.h>
#include <mxl/time.h>
#include <mxl/version.h>

#include <stddef.h>
#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(mxlStatus) == 4, "mxlStatus is int-sized");
_Static_assert(sizeof(mxlVersionType) == 16, "mxlVersionType");
_Static_assert(sizeof(mxlFlowInfo) == 2048, "mxlFlowInfo");
_Static_assert(offsetof(mxlFlowInfo, runtime) == 200, "runtime offset");
_Static_assert(offsetof(mxlFlowInfo, config.common.grainRate) == 32, "grainRate offset");
_Static_assert(offsetof(mxlFlowInfo, config.discrete.grainCount) == 152, "grainCount offset");
_Static_assert(offsetof(mxlFlowInfo, config.continuous.bufferLength) == 140, "bufferLength offset");
_Static_assert(sizeof(mxlGrainInfo) == 4096, "mxlGrainInfo");
_Static_assert(offsetof(mxlGrainInfo, validSlices) == 26, "validSlices offset");
_Static_assert(sizeof(mxlWrappedMultiBufferSlice) == 48, "mxlWrappedMultiBufferSlice");
_Static_assert(sizeof(mxlFabricsInterfaceCaps) == 24, "mxlFabricsInterfaceCaps");
_Static_assert(sizeof(mxlFabricsInterfaceConfig) == 56, "mxlFabricsInterfaceConfig");
_Static_assert(offsetof(mxlFabricsInterfaceConfig, attr) == 48, "attr offset");
_Static_assert(sizeof(mxlFabricsInterfaceList) == 64, "mxlFabricsInterfaceList");
_Static_assert(sizeof(mxlFabricsTargetConfig) == 72, "mxlFabricsTargetConfig");
_Static_assert(offsetof(mxlFabricsTargetConfig, writer) == 64, "writer offset");
_Static_assert(sizeof(mxlFabricsInitiatorConfig) == 72, "mxlFabricsInitiatorConfig");
_Static_assert(MXL_ERR_UNSUPPORTED_OPERATION == 1032, "status block");
_Static_assert(sizeof(mxlFabricsEvent) == 144, "mxlFabricsEvent");
_Static_assert(offsetof(mxlFabricsEvent, grain) == 8, "event payload offset");
_Static_assert(sizeof(mxlFabricsEventCounters) == 48, "mxlFabricsEventCounters");
_Static_assert(sizeof(mxlFabricsTransferOutcome) == 136, "initiator events keep mxlFabricsEvent's size");
_Static_assert(sizeof(mxlFabricsTargetChange) == 136, "initiator events keep mxlFabricsEvent's size");
_Static_assert(offsetof(mxlFabricsEvent, transfer) == 8, "initiator event payload offset");
_Static_assert(sizeof(mxlFabricsBatch) == 8, "mxlFabricsBatch");
_Static_assert(sizeof(mxlFabricsTransferStatus) == 40, "mxlFabricsTransferStatus");
_Static_assert(sizeof(mxlFabricsTransferTargetStatus) == 288, "mxlFabricsTransferTargetStatus");
_Static_assert(sizeof(mxlFabricsBatchSummary) == 40, "mxlFabricsBatchSummary");

int main(void)
{
    mxlVersionType version;
    if (mxlGetVersion(&version) != MXL_STATUS_OK || version.major != MXL_VERSION_MAJOR || strcmp(version.full, MXL_VERSION_FULL) != 0)
    {
        fprintf(stderr, "version mismatch: library %s, headers %s\n", version.full, MXL_VERSION_FULL);
        return 1;
    }
    if (mxlGetVersion(NULL) != MXL_ERR_INVALID_ARG || !mxlIsDiscreteDataFormat(MXL_DATA_FORMAT_VIDEO) ||
        mxlIsDiscreteDataFormat(MXL_DATA_FORMAT_AUDIO) || !mxlIsContinuousDataFormat(MXL_DATA_FORMAT_AUDIO))
    {
        fprintf(stderr, "unexpected API answers\n");
        return 1;
    }
    printf("%s\n", version.full);
    return 0;
}
