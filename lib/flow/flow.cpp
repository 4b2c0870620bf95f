// The C functions of flow.h: unwrap the handles, call the library, let guard turn exceptions into statuses.
#include <mxl/flow.h>

#include "ContinuousFlowReader.hpp"
#include "ContinuousFlowWriter.hpp"
#include "DiscreteFlowReader.hpp"
#include "DiscreteFlowWriter.hpp"
#include "Handles.hpp"

#include <cstring>

using mxl::guard;
using mxl::readerFrom;
using mxl::required;
using mxl::writerFrom;

extern "C" MXL_EXPORT mxlStatus mxlCreateFlowWriter(mxlInstance instance, char const* flowDef, char const* options, mxlFlowWriter* writer,
                                                    mxlFlowConfigInfo* configInfo, bool* created)
{
    return guard(__func__,
                 [&]
                 {
                     auto& out = required(writer, "writer");
                     auto const result = mxl::instanceFrom(instance).createWriter(flowDef, options);
                     out = result.writer;
                     if (configInfo != nullptr)
                     {
                         *configInfo = result.writer->config();
                     }
                     if (created != nullptr)
                     {
                         *created = result.created;
                     }
                 });
}

extern "C" MXL_EXPORT mxlStatus mxlReleaseFlowWriter(mxlInstance instance, mxlFlowWriter writer)
{
    return guard(__func__,
                 [&]
                 {
                     // Looked up by address only: a handle released before must not be dereferenced.
                     mxl::instanceFrom(instance).releaseWriter(&writerFrom<mxlFlowWriter_t>(writer));
                 });
}

extern "C" MXL_EXPORT mxlStatus mxlCreateFlowReader(mxlInstance instance, char const* flowId, char const*, mxlFlowReader* reader)
{
    return guard(__func__,
                 [&]
                 {
                     auto& out = required(reader, "reader");
                     out = &mxl::instanceFrom(instance).createReader(flowId);
                 });
}

extern "C" MXL_EXPORT mxlStatus mxlReleaseFlowReader(mxlInstance instance, mxlFlowReader reader)
{
    return guard(__func__,
                 [&]
                 {
                     // Looked up by address only: a handle released before must not be dereferenced.
                     mxl::instanceFrom(instance).releaseReader(&readerFrom<mxlFlowReader_t>(reader));
                 });
}

extern "C" MXL_EXPORT mxlStatus mxlIsFlowActive(mxlInstance instance, char const* flowId, bool* isActive)
{
    return guard(__func__,
                 [&]
                 {
                     auto& out = required(isActive, "isActive");
                     auto const& domain = mxl::instanceFrom(instance).domain();
                     out = domain.isFlowActive(mxl::canonicalFlowId(flowId));
                 });
}

extern "C" MXL_EXPORT mxlStatus mxlGetFlowDef(mxlInstance instance, char const* flowId, char* buffer, size_t* bufferSize)
{
    return guard(__func__,
                 [&]
                 {
                     auto& size = required(bufferSize, "bufferSize");
                     auto const& domain = mxl::instanceFrom(instance).domain();
                     auto const text = domain.readFlowDefinition(mxl::canonicalFlowId(flowId));
                     auto const available = size;
                     size = text.size() + 1;
                     // The size query is the documented protocol (SDK compatible status), not a failure: no log line.
                     if (buffer == nullptr || available < size)
                     {
                         return MXL_ERR_INVALID_ARG;
                     }
                     std::memcpy(buffer, text.c_str(), size);
                     return MXL_STATUS_OK;
                 });
}

namespace
{
    // The reader's flow info, or the part of it `part` selects, copied out as it stands in shared memory now.
    template <typename Info, typename Part>
    mxlStatus copyReaderInfo(char const* function, mxlFlowReader reader, Info* info, Part part)
    {
        return guard(function,
                     [&]
                     {
                         Info const& source = part(readerFrom<mxl::FlowReader>(reader).info());
                         std::memcpy(&required(info, "info"), &source, sizeof(Info));
                     });
    }
}

extern "C" MXL_EXPORT mxlStatus mxlFlowReaderGetInfo(mxlFlowReader reader, mxlFlowInfo* info)
{
    return copyReaderInfo(__func__, reader, info, [](mxlFlowInfo const& all) -> mxlFlowInfo const& { return all; });
}

extern "C" MXL_EXPORT mxlStatus mxlFlowReaderGetConfigInfo(mxlFlowReader reader, mxlFlowConfigInfo* info)
{
    return copyReaderInfo(__func__, reader, info, [](mxlFlowInfo const& all) -> mxlFlowConfigInfo const& { return all.config; });
}

extern "C" MXL_EXPORT mxlStatus mxlFlowReaderGetRuntimeInfo(mxlFlowReader reader, mxlFlowRuntimeInfo* info)
{
    return copyReaderInfo(__func__, reader, info, [](mxlFlowInfo const& all) -> mxlFlowRuntimeInfo const& { return all.runtime; });
}

extern "C" MXL_EXPORT mxlStatus mxlFlowReaderGetGrainSlice(mxlFlowReader reader, uint64_t index, uint16_t minValidSlices,
                                                           uint64_t timeoutNs, mxlGrainInfo* grain, uint8_t** payload)
{
    return guard(__func__,
                 [&]
                 {
                     auto& discrete = readerFrom<mxl::DiscreteFlowReader>(reader);
                     return discrete.getGrain(index, minValidSlices, timeoutNs, required(grain, "grain"), required(payload, "payload"));
                 });
}

extern "C" MXL_EXPORT mxlStatus mxlFlowReaderGetGrain(mxlFlowReader reader, uint64_t index, uint64_t timeoutNs, mxlGrainInfo* grain,
                                                      uint8_t** payload)
{
    return mxlFlowReaderGetGrainSlice(reader, index, MXL_GRAIN_VALID_SLICES_ALL, timeoutNs, grain, payload);
}

// A timeout of 2^63 or more means "do not wait", as in the SDK (docs/flow-behaviour.md, "Blocking calls").
extern "C" MXL_EXPORT mxlStatus mxlFlowReaderGetGrainSliceNonBlocking(mxlFlowReader reader, uint64_t index, uint16_t minValidSlices,
                                                                      mxlGrainInfo* grain, uint8_t** payload)
{
    return mxlFlowReaderGetGrainSlice(reader, index, minValidSlices, UINT64_MAX, grain, payload);
}

extern "C" MXL_EXPORT mxlStatus mxlFlowReaderGetGrainNonBlocking(mxlFlowReader reader, uint64_t index, mxlGrainInfo* grain,
                                                                 uint8_t** payload)
{
    return mxlFlowReaderGetGrainSlice(reader, index, MXL_GRAIN_VALID_SLICES_ALL, UINT64_MAX, grain, payload);
}

extern "C" MXL_EXPORT mxlStatus mxlFlowWriterGetGrainInfo(mxlFlowWriter writer, uint64_t index, mxlGrainInfo* grain)
{
    return guard(__func__,
                 [&]
                 {
                     auto const& discrete = writerFrom<mxl::DiscreteFlowWriter>(writer);
                     required(grain, "grain") = discrete.grainInfo(index);
                 });
}

extern "C" MXL_EXPORT mxlStatus mxlFlowWriterOpenGrain(mxlFlowWriter writer, uint64_t index, mxlGrainInfo* grain, uint8_t** payload)
{
    return guard(__func__, [&]
                 { writerFrom<mxl::DiscreteFlowWriter>(writer).openGrain(index, required(grain, "grain"), required(payload, "payload")); });
}

extern "C" MXL_EXPORT mxlStatus mxlFlowWriterCancelGrain(mxlFlowWriter writer)
{
    return guard(__func__, [&] { writerFrom<mxl::DiscreteFlowWriter>(writer).cancelGrain(); });
}

extern "C" MXL_EXPORT mxlStatus mxlFlowWriterCommitGrain(mxlFlowWriter writer, mxlGrainInfo const* grain)
{
    return guard(__func__, [&] { writerFrom<mxl::DiscreteFlowWriter>(writer).commitGrain(required(grain, "grain")); });
}

extern "C" MXL_EXPORT mxlStatus mxlFlowReaderGetMaxReadLengthSamples(mxlFlowReader reader, size_t* maxReadLength)
{
    return guard(__func__,
                 [&]
                 {
                     auto const& continuous = readerFrom<mxl::ContinuousFlowReader>(reader);
                     required(maxReadLength, "maxReadLength") = continuous.maxReadLengthSamples();
                 });
}

extern "C" MXL_EXPORT mxlStatus mxlFlowReaderGetSamples(mxlFlowReader reader, uint64_t index, size_t count, uint64_t timeoutNs,
                                                        mxlWrappedMultiBufferSlice* payloadBuffersSlices)
{
    return guard(__func__,
                 [&]
                 {
                     auto const& continuous = readerFrom<mxl::ContinuousFlowReader>(reader);
                     return continuous.getSamples(index, count, timeoutNs, required(payloadBuffersSlices, "payloadBuffersSlices"));
                 });
}

extern "C" MXL_EXPORT mxlStatus mxlFlowReaderGetSamplesNonBlocking(mxlFlowReader reader, uint64_t index, size_t count,
                                                                   mxlWrappedMultiBufferSlice* payloadBuffersSlices)
{
    return mxlFlowReaderGetSamples(reader, index, count, UINT64_MAX, payloadBuffersSlices);
}

extern "C" MXL_EXPORT mxlStatus mxlFlowWriterGetMaxWriteLengthSamples(mxlFlowWriter writer, size_t* maxWriteLength)
{
    return guard(__func__,
                 [&]
                 {
                     auto const& continuous = writerFrom<mxl::ContinuousFlowWriter>(writer);
                     required(maxWriteLength, "maxWriteLength") = continuous.maxWriteLengthSamples();
                 });
}

extern "C" MXL_EXPORT mxlStatus mxlFlowWriterOpenSamples(mxlFlowWriter writer, uint64_t index, size_t count,
                                                         mxlMutableWrappedMultiBufferSlice* payloadBuffersSlices)
{
    return guard(__func__,
                 [&]
                 {
                     auto& continuous = writerFrom<mxl::ContinuousFlowWriter>(writer);
                     continuous.openSamples(index, count, required(payloadBuffersSlices, "payloadBuffersSlices"));
                 });
}

extern "C" MXL_EXPORT mxlStatus mxlFlowWriterCancelSamples(mxlFlowWriter writer)
{
    return guard(__func__, [&] { writerFrom<mxl::ContinuousFlowWriter>(writer).cancelSamples(); });
}

extern "C" MXL_EXPORT mxlStatus mxlFlowWriterCommitSamples(mxlFlowWriter writer)
{
    return guard(__func__, [&] { writerFrom<mxl::ContinuousFlowWriter>(writer).commitSamples(); });
}

extern "C" MXL_EXPORT mxlStatus mxlCreateFlowSynchronizationGroup(mxlInstance instance, mxlFlowSynchronizationGroup* group)
{
    return guard(__func__,
                 [&]
                 {
                     auto& out = required(group, "group");
                     out = &mxl::instanceFrom(instance).createSynchronizationGroup();
                 });
}

extern "C" MXL_EXPORT mxlStatus mxlReleaseFlowSynchronizationGroup(mxlInstance instance, mxlFlowSynchronizationGroup group)
{
    return guard(__func__, [&] { mxl::instanceFrom(instance).releaseSynchronizationGroup(&mxl::groupFrom(group)); });
}

extern "C" MXL_EXPORT mxlStatus mxlFlowSynchronizationGroupAddReader(mxlFlowSynchronizationGroup group, mxlFlowReader reader)
{
    return guard(__func__, [&] { mxl::groupFrom(group).addReader(readerFrom<mxl::FlowReader>(reader), MXL_GRAIN_VALID_SLICES_ALL); });
}

extern "C" MXL_EXPORT mxlStatus mxlFlowSynchronizationGroupAddPartialGrainReader(mxlFlowSynchronizationGroup group, mxlFlowReader reader,
                                                                                 uint16_t minValidSlices)
{
    return guard(__func__, [&] { mxl::groupFrom(group).addReader(readerFrom<mxl::DiscreteFlowReader>(reader), minValidSlices); });
}

extern "C" MXL_EXPORT mxlStatus mxlFlowSynchronizationGroupRemoveReader(mxlFlowSynchronizationGroup group, mxlFlowReader reader)
{
    return guard(__func__, [&] { mxl::groupFrom(group).removeReader(&readerFrom<mxlFlowReader_t>(reader)); });
}

extern "C" MXL_EXPORT mxlStatus mxlFlowSynchronizationGroupWaitForDataAt(mxlFlowSynchronizationGroup group, uint64_t timestamp,
                                                                         uint64_t timeoutNs)
{
    return guard(__func__, [&] { return mxl::groupFrom(group).waitForDataAt(timestamp, timeoutNs); });
}
