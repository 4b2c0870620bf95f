// mxlsink: writes the stream it receives (v210 video or float audio) into an MXL flow.
#pragma once

#include <gst/base/gstbasesink.h>

G_BEGIN_DECLS

#define GST_TYPE_MXL_SINK (gst_mxl_sink_get_type())
G_DECLARE_FINAL_TYPE(GstMxlSink, gst_mxl_sink, GST, MXL_SINK, GstBaseSink)

GST_ELEMENT_REGISTER_DECLARE(mxlsink);

G_END_DECLS
