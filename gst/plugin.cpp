// gst-plugin-mxl: registers mxlsink and mxlsrc.
#include "MxlSink.hpp"
#include "MxlSrc.hpp"

#include <gst/gst.h>

namespace
{
    gboolean initPlugin(GstPlugin* plugin)
    {
        return GST_ELEMENT_REGISTER(mxlsink, plugin) && GST_ELEMENT_REGISTER(mxlsrc, plugin);
    }
}

// GStreamer accepts only the licences of its own list (gstplugin.c); the repository states none of them.
GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, mxl, "MXL flows as GStreamer elements: mxlsink writes a flow, mxlsrc reads one",
                  initPlugin, MXL_GST_VERSION, GST_LICENSE_UNKNOWN, "mxl", "https://github.com/dmf-mxl/mxl")
