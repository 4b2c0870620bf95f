#include "ElementProperties.hpp"

namespace mxl::gst
{
    void installString(GObjectClass* objectClass, guint property, char const* name, char const* nick, char const* blurb,
                       char const* fallback)
    {
        g_object_class_install_property(objectClass, property, g_param_spec_string(name, nick, blurb, fallback, settingFlags));
    }

    void installCounter(GObjectClass* objectClass, guint property, char const* name, char const* nick, char const* blurb)
    {
        g_object_class_install_property(objectClass, property, g_param_spec_uint64(name, nick, blurb, 0, G_MAXUINT64, 0, counterFlags));
    }

    void setString(std::string& setting, GValue const* value)
    {
        auto const* const text = g_value_get_string(value);
        setting = text != nullptr ? text : "";
    }

    void getString(GValue* value, std::string const& setting)
    {
        g_value_set_string(value, setting.empty() ? nullptr : setting.c_str());
    }
}
