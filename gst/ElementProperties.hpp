// The GObject properties both elements have: string settings taken at start (unset reads as NULL) and counters that
// applications read while the element runs.
#pragma once

#include <gst/gst.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace mxl::gst
{
    // A setting may change until the element is READY: a running element keeps the settings it started with.
    inline constexpr auto settingFlags = static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
    inline constexpr auto counterFlags = static_cast<GParamFlags>(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

    void installString(GObjectClass* objectClass, guint property, char const* name, char const* nick, char const* blurb,
                       char const* fallback);
    void installCounter(GObjectClass* objectClass, guint property, char const* name, char const* nick, char const* blurb);

    // NULL sets the empty string, and the empty string reads as NULL (unset).
    void setString(std::string& setting, GValue const* value);
    void getString(GValue* value, std::string const& setting);

    // Which member of an element's settings or counters a property id stands for.
    template <typename Object, typename Field>
    struct PropertyField
    {
        guint property;
        Field Object::*field;
    };

    // The member of `object` that `fields` names for `property`; nullptr when it names none.
    template <typename Object, typename Field, std::size_t count>
    Field* fieldOf(Object& object, std::array<PropertyField<Object, Field>, count> const& fields, guint property)
    {
        auto const found = std::ranges::find(fields, property, &PropertyField<Object, Field>::property);
        return found != fields.end() ? &(object.*(found->field)) : nullptr;
    }

    template <typename Counters, std::size_t count>
    using CounterFields = std::array<PropertyField<Counters, std::atomic<std::uint64_t>>, count>;

    // Sets `value` to the counter that `fields` names for `property`; false when it names none. Counters are atomic, so
    // they are read without the object lock that guards the settings.
    template <typename Counters, std::size_t count>
    bool getCounter(GValue* value, Counters& counters, CounterFields<Counters, count> const& fields, guint property)
    {
        auto const* const counter = fieldOf(counters, fields, property);
        if (counter == nullptr)
        {
            return false;
        }
        g_value_set_uint64(value, counter->load());
        return true;
    }
}
