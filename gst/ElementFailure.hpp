// A failure an element reports as an error message on the bus: which GStreamer error it is and a text naming the
// property or value at fault and what was expected. Helpers throw it; the element's virtual methods post it once.
#pragma once

#include <gst/gst.h>

#include <stdexcept>
#include <string>

namespace mxl::gst
{
    class ElementFailure : public std::runtime_error
    {
    public:
        ElementFailure(GQuark errorDomain, gint errorCode, std::string const& message)
            : std::runtime_error{message}
            , domain{errorDomain}
            , code{errorCode}
        {
        }

        GQuark domain;
        gint code;
    };

    inline ElementFailure settingsFailure(std::string const& message)
    {
        return ElementFailure{GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS, message};
    }

    inline ElementFailure notFoundFailure(std::string const& message)
    {
        return ElementFailure{GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND, message};
    }

    inline ElementFailure formatFailure(std::string const& message)
    {
        return ElementFailure{GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT, message};
    }

    inline ElementFailure flowFailure(std::string const& message)
    {
        return ElementFailure{GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED, message};
    }

    // Posts `failure` as an error message of `element`.
    void postFailure(GstElement* element, ElementFailure const& failure, char const* function, int line);
}

#define MXL_GST_POST_FAILURE(element, failure) ::mxl::gst::postFailure(GST_ELEMENT(element), (failure), GST_FUNCTION, __LINE__)
