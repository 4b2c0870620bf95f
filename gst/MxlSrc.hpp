// mxlsrc: reads an MXL flow (v210 video or float audio) as a live source.
#pragma once

#include <gst/base/gstpushsrc.h>

G_BEGIN_DECLS

#define GST_TYPE_MXL_SRC (gst_mxl_src_get_type())
G_DECLARE_FINAL_TYPE(GstMxlSrc, gst_mxl_src, GST, MXL_SRC, GstPushSrc)

GST_ELEMENT_REGISTER_DECLARE(mxlsrc);

G_END_DECLS
