// The C API of include/mxl/fabrics.h, include/mxl/fabrics_state.h and include/mxl/fabrics_backends.h (fabrics_events.h
// and fabrics_batch.h have files of their own): check arguments, call the C++ object, and let guard turn exceptions into
// statuses.
#include <mxl/fabrics.h>
#include <mxl/fabrics_backends.h>
#include <mxl/fabrics_state.h>

#include "common/Status.hpp"
#include "fabrics/api/ArgumentChecks.hpp"
#include "fabrics/api/BackendList.hpp"
#include "fabrics/api/Instance.hpp"
#include "fabrics/api/InstanceOptions.hpp"
#include "fabrics/core/InterfaceList.hpp"
#include "fabrics/core/Interrupted.hpp"
#include "fabrics/ticket/ProviderNames.hpp"
#include "fabrics/ticket/TargetInfo.hpp"
#include "fabrics/transport/BackendLoader.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>

namespace
{
    using namespace mxl;
    using namespace mxl::fabrics;

    // The size protocol of every string getter: NULL buffer → size needed (with the NUL), short buffer → STRLEN.
    mxlStatus copyString(std::string_view text, char* out, std::size_t* inoutSize)
    {
        require(inoutSize, "the string size");
        if (out == nullptr)
        {
            *inoutSize = text.size() + 1;
            return MXL_STATUS_OK;
        }
        if (*inoutSize <= text.size())
        {
            fail(MXL_ERR_STRLEN, "a buffer of {} bytes cannot hold {} characters and the NUL", *inoutSize, text.size());
        }
        // copy(), not memcpy: an empty view may have a null data().
        out[text.copy(out, text.size())] = '\0';
        return MXL_STATUS_OK;
    }

    // A target or initiator, owned by `instance` in its list `owned`.
    template <typename Owned>
    using OwnedList = std::vector<std::unique_ptr<Owned>> mxlFabricsInstance_t::*;

    template <typename Owned>
    mxlStatus createOwned(mxlFabricsInstance instance, OwnedList<Owned> owned, Owned** out, char const* outName)
    {
        require(instance, "the fabrics instance");
        require(out, outName);
        *out = (instance->*owned).emplace_back(std::make_unique<Owned>(instance->backend)).get();
        return MXL_STATUS_OK;
    }

    // Never from inside one of the object's own event handlers: the dispatch that runs it would end in freed memory.
    template <typename Owned>
    mxlStatus destroyOwned(mxlFabricsInstance instance, OwnedList<Owned> owned, Owned* handle, char const* kind)
    {
        require(instance, "the fabrics instance");
        require(handle, kind);
        handle->events.refuseFromHandler();
        auto& list = instance->*owned;
        auto const found = std::find_if(list.begin(), list.end(), [&](auto const& object) { return object.get() == handle; });
        if (found == list.end())
        {
            fail(MXL_ERR_INVALID_ARG, "{} does not belong to this fabrics instance", kind);
        }
        list.erase(found);
        return MXL_STATUS_OK;
    }

    // The blocking calls: a signal ending the wait is the caller's business (MXL_ERR_INTERRUPTED), not an error to log.
    template <typename Body>
    mxlStatus interruptible(Body&& body)
    {
        try
        {
            return std::forward<Body>(body)();
        }
        catch (Interrupted const&)
        {
            return MXL_ERR_INTERRUPTED;
        }
    }

    // The target reads: an arrival lost on the way (TOO_LATE, an initiator overwrote it first) is a status the reader
    // counts, which the target logged already at a rate a reader that fell behind cannot turn into a flood.
    template <typename Body>
    mxlStatus targetRead(Body&& body)
    {
        try
        {
            return interruptible(std::forward<Body>(body));
        }
        catch (Error const& e)
        {
            if (e.status() != MXL_ERR_OUT_OF_RANGE_TOO_LATE)
            {
                throw;
            }
            return e.status();
        }
    }

    mxlStatus readStatus(std::optional<mxlFabricsGrainArrival> const& arrival, std::uint64_t* out)
    {
        if (!arrival)
        {
            return MXL_ERR_NOT_READY;
        }
        *out = arrival->index;
        return MXL_STATUS_OK;
    }

    mxlStatus samplesStatus(std::optional<mxlFabricsSamplesArrival> const& arrival, std::uint64_t* outHeadIndex, std::size_t* outCount)
    {
        if (!arrival)
        {
            return MXL_ERR_NOT_READY;
        }
        *outHeadIndex = arrival->headIndex;
        *outCount = arrival->count;
        return MXL_STATUS_OK;
    }
}

extern "C"
{
    mxlStatus mxlFabricsCreateInstance(mxlInstance in_instance, char const* in_options, mxlFabricsInstance* out_instance)
    {
        return guard(__func__,
                     [&]
                     {
                         require(in_instance, "the mxl instance");
                         require(out_instance, "out_instance");
                         // Loading the backend enters (and so initialises) it, before its transport first reads its environment.
                         auto& backend = backendNamed(InstanceOptions::parse(in_options).backend);
                         *out_instance = new mxlFabricsInstance_t{in_instance, backend, {}, {}};
                     });
    }

    mxlStatus mxlFabricsDestroyInstance(mxlFabricsInstance in_instance)
    {
        return guard(__func__,
                     [&]
                     {
                         require(in_instance, "the fabrics instance");
                         delete in_instance;
                     });
    }

    mxlStatus mxlFabricsGetBackendInfo(mxlFabricsInstance in_instance, mxlFabricsBackendInfo* out_info)
    {
        return guard(__func__,
                     [&]
                     {
                         require(in_instance, "the fabrics instance");
                         require(out_info, "out_info");
                         auto const& identity = in_instance->backend.identity();
                         *out_info = {identity.name.c_str(), identity.path.c_str(), identity.abiVersion};
                     });
    }

    mxlStatus mxlFabricsGetBackends(mxlFabricsBackendList** out_list)
    {
        return guard(__func__,
                     [&]
                     {
                         require(out_list, "out_list");
                         *out_list = listBackends(backendFiles());
                     });
    }

    mxlStatus mxlFabricsFreeBackendList(mxlFabricsBackendList* in_list)
    {
        return guard(__func__,
                     [&]
                     {
                         require(in_list, "the backend list");
                         freeBackends(in_list);
                     });
    }

    mxlStatus mxlFabricsGetInterfaces(mxlFabricsInstance in_instance, mxlFabricsInterfaceConfig const* in_query,
                                      mxlFabricsInterfaceList** out_list)
    {
        return guard(__func__,
                     [&]
                     {
                         require(in_instance, "the fabrics instance");
                         require(out_list, "out_list");
                         *out_list = listInterfaces(in_instance->backend, in_query);
                     });
    }

    mxlStatus mxlFabricsFreeInterfaceList(mxlFabricsInterfaceList* in_list)
    {
        freeInterfaces(in_list);
        return MXL_STATUS_OK;
    }

    mxlStatus mxlFabricsCreateTarget(mxlFabricsInstance in_instance, mxlFabricsTarget* out_target)
    {
        return guard(__func__, [&] { return createOwned(in_instance, &mxlFabricsInstance_t::targets, out_target, "out_target"); });
    }

    mxlStatus mxlFabricsDestroyTarget(mxlFabricsInstance in_instance, mxlFabricsTarget in_target)
    {
        return guard(__func__, [&] { return destroyOwned(in_instance, &mxlFabricsInstance_t::targets, in_target, "the target"); });
    }

    mxlStatus mxlFabricsTargetSetup(mxlFabricsTarget in_target, mxlFabricsTargetConfig const* in_config, char const* in_options,
                                    mxlFabricsTargetInfo* out_info)
    {
        return guard(__func__,
                     [&]
                     {
                         require(in_target, "the target");
                         require(in_config, "the target config");
                         require(out_info, "out_info");
                         in_target->events.stop();
                         in_target->target.setup(*in_config, in_options);
                         *out_info = new mxlFabricsTargetInfo_t{in_target->target.ticket()};
                     });
    }

    mxlStatus mxlFabricsTargetReadGrainNonBlocking(mxlFabricsTarget in_target, uint64_t* out_grainIndex)
    {
        return mxlFabricsTargetReadGrain(in_target, 0, out_grainIndex);
    }

    mxlStatus mxlFabricsTargetReadGrain(mxlFabricsTarget in_target, uint16_t in_timeoutMs, uint64_t* out_grainIndex)
    {
        return guard(__func__,
                     [&]
                     {
                         require(in_target, "the target");
                         require(out_grainIndex, "out_grainIndex");
                         in_target->events.refuseReadWhileStarted();
                         return targetRead(
                             [&]
                             { return readStatus(in_target->target.readGrain(std::chrono::milliseconds{in_timeoutMs}), out_grainIndex); });
                     });
    }

    mxlStatus mxlFabricsTargetReadSamplesNonBlocking(mxlFabricsTarget in_target, uint64_t* out_headIndex, size_t* out_count)
    {
        return mxlFabricsTargetReadSamples(in_target, 0, out_headIndex, out_count);
    }

    mxlStatus mxlFabricsTargetReadSamples(mxlFabricsTarget in_target, uint16_t in_timeoutMs, uint64_t* out_headIndex, size_t* out_count)
    {
        return guard(__func__,
                     [&]
                     {
                         require(in_target, "the target");
                         require(out_headIndex, "out_headIndex");
                         require(out_count, "out_count");
                         in_target->events.refuseReadWhileStarted();
                         return targetRead(
                             [&] {
                                 return samplesStatus(in_target->target.readSamples(std::chrono::milliseconds{in_timeoutMs}), out_headIndex,
                                                      out_count);
                             });
                     });
    }

    mxlStatus mxlFabricsCreateInitiator(mxlFabricsInstance in_instance, mxlFabricsInitiator* out_initiator)
    {
        return guard(__func__, [&] { return createOwned(in_instance, &mxlFabricsInstance_t::initiators, out_initiator, "out_initiator"); });
    }

    mxlStatus mxlFabricsDestroyInitiator(mxlFabricsInstance in_instance, mxlFabricsInitiator in_initiator)
    {
        return guard(__func__, [&] { return destroyOwned(in_instance, &mxlFabricsInstance_t::initiators, in_initiator, "the initiator"); });
    }

    mxlStatus mxlFabricsInitiatorSetup(mxlFabricsInitiator in_initiator, mxlFabricsInitiatorConfig const* in_config, char const* in_options)
    {
        return guard(__func__,
                     [&]
                     {
                         require(in_initiator, "the initiator");
                         require(in_config, "the initiator config");
                         in_initiator->events.refuseFromHandler();
                         in_initiator->initiator.reset();
                         in_initiator->initiator = setupInitiator(in_initiator->backend, *in_config, in_options);
                         in_initiator->initiator->reportTo(&in_initiator->events);
                     });
    }
}

namespace
{
    Initiator& setUp(mxlFabricsInitiator initiator)
    {
        require(initiator, "the initiator");
        if (!initiator->initiator)
        {
            fail(MXL_ERR_INVALID_STATE, "the initiator is not set up");
        }
        return *initiator->initiator;
    }
}

extern "C"
{
    mxlStatus mxlFabricsInitiatorAddTarget(mxlFabricsInitiator in_initiator, mxlFabricsTargetInfo in_targetInfo)
    {
        return guard(__func__,
                     [&]
                     {
                         require(in_targetInfo, "the target info");
                         setUp(in_initiator).addTarget(in_targetInfo->info);
                     });
    }

    mxlStatus mxlFabricsInitiatorRemoveTarget(mxlFabricsInitiator in_initiator, mxlFabricsTargetInfo in_targetInfo)
    {
        return guard(__func__,
                     [&]
                     {
                         require(in_targetInfo, "the target info");
                         setUp(in_initiator).removeTarget(in_targetInfo->info.id);
                     });
    }

    mxlStatus mxlFabricsInitiatorTransferGrain(mxlFabricsInitiator in_initiator, uint64_t in_grainIndex, uint16_t in_startSlice,
                                               uint16_t in_endSlice)
    {
        return guard(__func__, [&] { return setUp(in_initiator).transferGrain(in_grainIndex, in_startSlice, in_endSlice); });
    }

    mxlStatus mxlFabricsInitiatorTransferSamples(mxlFabricsInitiator in_initiator, uint64_t in_headIndex, size_t in_count)
    {
        return guard(__func__, [&] { return setUp(in_initiator).transferSamples(in_headIndex, in_count); });
    }

    mxlStatus mxlFabricsInitiatorMakeProgressNonBlocking(mxlFabricsInitiator in_initiator)
    {
        return guard(__func__, [&] { return setUp(in_initiator).makeProgress(std::chrono::milliseconds{0}); });
    }

    mxlStatus mxlFabricsInitiatorMakeProgressBlocking(mxlFabricsInitiator in_initiator, uint16_t in_timeoutMs)
    {
        return guard(__func__, [&]
                     { return interruptible([&] { return setUp(in_initiator).makeProgress(std::chrono::milliseconds{in_timeoutMs}); }); });
    }

    mxlStatus mxlFabricsInitiatorGetTargetState(mxlFabricsInitiator in_initiator, mxlFabricsTargetInfo in_targetInfo,
                                                mxlFabricsTargetState* out_state, char* out_reason, size_t* inout_reasonSize)
    {
        return guard(__func__,
                     [&]
                     {
                         require(in_targetInfo, "the target info");
                         require(out_state, "out_state");
                         auto const& link = setUp(in_initiator).link(in_targetInfo->info.id);
                         *out_state = link.publicState();
                         if (out_reason == nullptr && inout_reasonSize == nullptr)
                         {
                             return MXL_STATUS_OK;
                         }
                         auto const* lost = std::get_if<LinkDisconnected>(&link.state);
                         return copyString(lost != nullptr ? std::string_view{lost->reason} : std::string_view{}, out_reason,
                                           inout_reasonSize);
                     });
    }

    // Programs built against the first header of this extension pass a struct of this size.
    static_assert(sizeof(mxlFabricsTargetCounters) == 32);

    mxlStatus mxlFabricsInitiatorGetTargetCounters(mxlFabricsInitiator in_initiator, mxlFabricsTargetInfo in_targetInfo,
                                                   mxlFabricsTargetCounters* out_counters)
    {
        return guard(__func__,
                     [&]
                     {
                         require(in_targetInfo, "the target info");
                         require(out_counters, "out_counters");
                         auto const& link = setUp(in_initiator).link(in_targetInfo->info.id);
                         *out_counters =
                             mxlFabricsTargetCounters{link.transfersPosted, link.transfersSkipped, link.reconnects, link.lagging ? 1U : 0U,
                                                      static_cast<std::uint32_t>(link.transfersInvalidated)};
                     });
    }

    mxlStatus mxlFabricsTargetGetAdmissionCounters(mxlFabricsTarget in_target, mxlFabricsAdmissionCounters* out_counters)
    {
        return guard(__func__,
                     [&]
                     {
                         require(in_target, "the target");
                         require(out_counters, "out_counters");
                         *out_counters = in_target->target.admission.counters();
                     });
    }

    // The first version of the struct: what a program built against the first header of this function passes, and the
    // least the function takes. A later field is filled only where structSize has room for it.
    constexpr std::uint32_t connectionCountersFirstBytes = 24;
    static_assert(sizeof(mxlFabricsConnectionCounters) == connectionCountersFirstBytes);

    mxlStatus mxlFabricsTargetGetConnectionCounters(mxlFabricsTarget in_target, mxlFabricsConnectionCounters* out_counters)
    {
        return guard(__func__,
                     [&]
                     {
                         require(in_target, "the target");
                         require(out_counters, "out_counters");
                         if (out_counters->structSize < connectionCountersFirstBytes)
                         {
                             fail(MXL_ERR_INVALID_ARG,
                                  "out_counters->structSize {} is smaller than mxlFabricsConnectionCounters ({} bytes)",
                                  out_counters->structSize, connectionCountersFirstBytes);
                         }
                         auto const counts = in_target->target.connections.counts();
                         *out_counters = mxlFabricsConnectionCounters{sizeof(mxlFabricsConnectionCounters), 0, counts.connected,
                                                                      counts.joinedWhileConnected};
                     });
    }

    mxlStatus mxlFabricsProviderFromString(char const* in_string, mxlFabricsProvider* out_provider)
    {
        return guard(__func__,
                     [&]
                     {
                         require(in_string, "the provider string");
                         require(out_provider, "out_provider");
                         auto const provider = providerFromName(in_string);
                         if (!provider)
                         {
                             fail(MXL_ERR_INVALID_ARG, "\"{}\" is not a provider (any, tcp, verbs, efa, shm)", in_string);
                         }
                         *out_provider = *provider;
                     });
    }

    mxlStatus mxlFabricsProviderToString(mxlFabricsProvider in_provider, char* out_string, size_t* in_stringSize)
    {
        return guard(__func__,
                     [&]
                     {
                         auto const name = providerName(in_provider);
                         if (!name)
                         {
                             fail(MXL_ERR_INVALID_ARG, "provider {} is not an mxlFabricsProvider", static_cast<int>(in_provider));
                         }
                         return copyString(*name, out_string, in_stringSize);
                     });
    }

    mxlStatus mxlFabricsTargetInfoToString(mxlFabricsTargetInfo in_targetInfo, char* out_string, size_t* in_stringSize)
    {
        return guard(__func__,
                     [&]
                     {
                         require(in_targetInfo, "the target info");
                         return copyString(in_targetInfo->info.toJson(), out_string, in_stringSize);
                     });
    }

    mxlStatus mxlFabricsTargetInfoFromString(char const* in_string, mxlFabricsTargetInfo* out_targetInfo)
    {
        return guard(__func__,
                     [&]
                     {
                         require(in_string, "the target info string");
                         require(out_targetInfo, "out_targetInfo");
                         *out_targetInfo = new mxlFabricsTargetInfo_t{TargetInfo::fromJson(in_string)};
                     });
    }

    mxlStatus mxlFabricsFreeTargetInfo(mxlFabricsTargetInfo in_info)
    {
        return guard(__func__,
                     [&]
                     {
                         require(in_info, "the target info");
                         delete in_info;
                     });
    }
}
