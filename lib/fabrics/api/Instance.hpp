// The objects behind the C handles: an instance owns its targets and initiators; each is set up (or set up again)
// from a config and then driven by one thread.
#pragma once

#include <mxl/fabrics.h>

#include "fabrics/core/Backend.hpp"
#include "fabrics/core/Batches.hpp"
#include "fabrics/core/Initiator.hpp"
#include "fabrics/core/InitiatorEvents.hpp"
#include "fabrics/core/Target.hpp"
#include "fabrics/core/TargetEvents.hpp"

#include <memory>
#include <vector>

namespace mxl::fabrics
{
    // Builds the initiator for the provider of `config` over `backend`.
    std::unique_ptr<Initiator> setupInitiator(Backend& backend, mxlFabricsInitiatorConfig const& config, char const* options);
}

struct mxlFabricsTarget_t
{
    explicit mxlFabricsTarget_t(mxl::fabrics::Backend& backend)
        : target{backend}
    {
    }

    mxl::fabrics::Target target;
    // After the target: destroyed first, so that its library thread has stopped before the target goes.
    mxl::fabrics::TargetEvents events{this};
};

struct mxlFabricsInitiator_t
{
    explicit mxlFabricsInitiator_t(mxl::fabrics::Backend& instanceBackend)
        : backend{instanceBackend}
    {
    }

    // The instance's: every setup opens the initiator over it.
    mxl::fabrics::Backend& backend;

    // Both outlive the initiator, which queues events and settles batch transfers until it is gone.
    mxl::fabrics::InitiatorEvents events{this};
    mxl::fabrics::Batches batches;
    std::unique_ptr<mxl::fabrics::Initiator> initiator;
};

struct mxlFabricsInstance_t
{
    mxlInstance mxl;
    // The transport of every target and initiator of this instance; loaded for the life of the process.
    mxl::fabrics::Backend& backend;
    std::vector<std::unique_ptr<mxlFabricsTarget_t>> targets;
    std::vector<std::unique_ptr<mxlFabricsInitiator_t>> initiators;
};
