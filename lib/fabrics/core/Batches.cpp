#include "fabrics/core/Batches.hpp"

#include "common/Status.hpp"

namespace mxl::fabrics
{
    std::uint64_t Batches::create(InitiatorEvents& events)
    {
        auto const id = ++_lastId;
        _batches.emplace(id, std::make_shared<Batch>(id, events));
        return id;
    }

    Batch& Batches::find(std::uint64_t id) const
    {
        auto const found = _batches.find(id);
        if (found == _batches.end())
        {
            fail(MXL_ERR_NOT_FOUND, "batch {} is not a batch of this initiator ({})", id,
                 id == 0 || id > _lastId ? "never created" : "freed");
        }
        return *found->second;
    }

    void Batches::free(std::uint64_t id)
    {
        static_cast<void>(find(id));
        _batches.erase(id);
    }
}
