// The batches of one initiator handle, by id. Ids count from 1 and are never reused, so that a freed batch's id is
// refused rather than taken for a later batch; they survive setting the initiator up again.
#pragma once

#include "fabrics/core/Batch.hpp"

#include <cstdint>
#include <map>
#include <memory>

namespace mxl::fabrics
{
    class Batches
    {
    public:
        [[nodiscard]] std::uint64_t create(InitiatorEvents& events);
        // NOT_FOUND for an id never given out, or freed.
        [[nodiscard]] Batch& find(std::uint64_t id) const;
        void free(std::uint64_t id);

    private:
        std::map<std::uint64_t, std::shared_ptr<Batch>> _batches;
        std::uint64_t _lastId = 0;
    };
}
