#include "ElementFailure.hpp"

namespace mxl::gst
{
    void postFailure(GstElement* element, ElementFailure const& failure, char const* function, int line)
    {
        // gst_element_message_full takes ownership of both strings.
        gst_element_message_full(element, GST_MESSAGE_ERROR, failure.domain, failure.code, g_strdup(failure.what()), nullptr, __FILE__,
                                 function, line);
    }
}
