// The C++ state behind an element's GObject instance ({parent, State* state}): made in the instance's init, deleted
// in finalize, and holding the settings its properties set and the TAI clock the element offers its pipeline. mxlsink
// and mxlsrc keep theirs the same way.
#pragma once

#include <gst/gst.h>

namespace mxl::gst
{
    template <typename Instance, typename State, Instance* (*cast)(gpointer), gpointer* parentClass>
    class ElementState
    {
    public:
        static State& of(gpointer object)
        {
            return *cast(object)->state;
        }

        // The settings as they stand, copied under the object lock that the property setters take.
        static decltype(State::settings) settingsOf(Instance* instance)
        {
            GST_OBJECT_LOCK(instance);
            auto copy = instance->state->settings;
            GST_OBJECT_UNLOCK(instance);
            return copy;
        }

        static void init(Instance* instance)
        {
            instance->state = new State;
            instance->state->clock.offerTo(GST_ELEMENT(instance));
        }

        // The methods every element has: the property accessors given, finalize and provide_clock.
        static void installMethods(GObjectClass* objectClass, GObjectSetPropertyFunc setProperty, GObjectGetPropertyFunc getProperty)
        {
            objectClass->set_property = setProperty;
            objectClass->get_property = getProperty;
            objectClass->finalize = finalize;
            GST_ELEMENT_CLASS(objectClass)->provide_clock = provideClock;
        }

    private:
        static void finalize(GObject* object)
        {
            delete cast(object)->state;
            G_OBJECT_CLASS(*parentClass)->finalize(object);
        }

        static GstClock* provideClock(GstElement* element)
        {
            return of(element).clock.provide();
        }
    };
}
