#include "fabrics/core/ArrivalEvents.hpp"

#include "common/Log.hpp"
#include "common/Status.hpp"
#include "fabrics/core/EventHandlers.hpp"
#include "fabrics/core/Interrupted.hpp"
#include "fabrics/core/Target.hpp"

#include <string_view>

namespace mxl::fabrics
{
    namespace
    {
        // Cut to fit, always NUL-terminated.
        void copyText(std::string_view text, char (&out)[MXL_FABRICS_EVENT_TEXT_SIZE])
        {
            out[text.copy(out, sizeof(out) - 1)] = '\0';
        }

        mxlFabricsEvent grainEvent(mxlFabricsGrainArrival const& arrival)
        {
            auto event = libraryEvent(MXL_FABRICS_EVENT_GRAIN_ARRIVED);
            event.grain = arrival;
            return event;
        }

        mxlFabricsEvent samplesEvent(mxlFabricsSamplesArrival const& arrival)
        {
            auto event = libraryEvent(MXL_FABRICS_EVENT_SAMPLES_ARRIVED);
            event.samples = arrival;
            return event;
        }

        mxlFabricsEvent problemEvent(mxlFabricsEventType type, mxlStatus status, std::string_view text)
        {
            auto event = libraryEvent(type);
            event.problem.status = status;
            copyText(text, event.problem.text);
            return event;
        }
    }

    std::optional<mxlFabricsEvent> readArrivalEvent(Target& target, std::chrono::milliseconds timeout)
    {
        auto const name = target.ticket().id;
        try
        {
            if (target.ingress)
            {
                auto const arrival = target.readGrain(timeout);
                return arrival ? std::optional{grainEvent(*arrival)} : std::nullopt;
            }
            auto const arrival = target.readSamples(timeout);
            return arrival ? std::optional{samplesEvent(*arrival)} : std::nullopt;
        }
        catch (Interrupted const&)
        {
            // A process stopped and continued (SIGSTOP, SIGCONT) sees EINTR from blocking waits even with every signal
            // blocked: nothing happened, read again.
            return std::nullopt;
        }
        catch (Error const& e)
        {
            if (e.status() == MXL_ERR_OUT_OF_RANGE_TOO_LATE)
            {
                // The target logged it (a lost arrival's lines are held back while they repeat).
                return problemEvent(MXL_FABRICS_EVENT_ARRIVAL_LOST, e.status(), e.what());
            }
            return failureEvent(name, e.status(), e.what());
        }
        catch (std::exception const& e)
        {
            return failureEvent(name, MXL_ERR_UNKNOWN, e.what());
        }
    }

    mxlFabricsEvent connectionEvent(ConnectionChange const& change)
    {
        auto event = libraryEvent(change.connected ? MXL_FABRICS_EVENT_INITIATOR_CONNECTED : MXL_FABRICS_EVENT_INITIATOR_DISCONNECTED);
        event.connection.connectionId = change.connectionId;
        copyText(change.reason, event.connection.reason);
        return event;
    }

    mxlFabricsEvent failureEvent(std::uint64_t targetId, mxlStatus status, std::string_view text)
    {
        log::error("fabrics target {}: reading arrivals failed, its events stop: {}", targetId, text);
        return problemEvent(MXL_FABRICS_EVENT_TARGET_FAILED, status, text);
    }
}
