# MXL_WITH_GSTREAMER: the GStreamer plugin (gst/) and its tests. On by default where pkg-config finds GStreamer's
# development packages; off, with a message saying what is missing, where it does not.
pkg_check_modules(GSTREAMER QUIET IMPORTED_TARGET
    gstreamer-1.0>=1.22 gstreamer-base-1.0>=1.22 gstreamer-video-1.0>=1.22 gstreamer-audio-1.0>=1.22)
option(MXL_WITH_GSTREAMER "Build the GStreamer plugin (mxlsink, mxlsrc)" ${GSTREAMER_FOUND})
if(MXL_WITH_GSTREAMER AND NOT GSTREAMER_FOUND)
    message(FATAL_ERROR "MXL_WITH_GSTREAMER: pkg-config finds no gstreamer-1.0, gstreamer-base-1.0, gstreamer-video-1.0 and "
                        "gstreamer-audio-1.0 >= 1.22; run scripts/install-deps.sh or configure with -DMXL_WITH_GSTREAMER=OFF")
endif()
if(NOT MXL_WITH_GSTREAMER)
    message(STATUS "mxl: GStreamer plugin not built (GStreamer 1.22 development packages not found, or MXL_WITH_GSTREAMER=OFF)")
endif()
