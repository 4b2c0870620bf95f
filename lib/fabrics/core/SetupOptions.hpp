// The options JSON of TargetSetup and InitiatorSetup: NULL, "" or an object; "cqDepth" sizes the
// completion queue, "transport" ("rma", "msg" or "auto") how writes travel (core/Transport.hpp), "devicePayloads"
// ("auto", "direct" or "staged") how a device flow's payloads cross (core/DevicePayloads.hpp), "allowInitiators" (a
// target's: addresses and prefixes, core/InitiatorAdmission.hpp) who may connect, "admissionKeyFile" (a ticket key file,
// lib/signing) the key a target's initiators must prove they hold and an initiator proves it holds, "incarnationMark"
// (an initiator's: true or false) whether its connection requests name the ticket's incarnation. Unknown keys are
// ignored.
#pragma once

#include "common/AddressPrefix.hpp"
#include "fabrics/core/DevicePayloads.hpp"
#include "fabrics/protocol/Transport.hpp"
#include "signing/SigningKeys.hpp"

#include <cstddef>
#include <optional>
#include <vector>

namespace mxl::fabrics
{
    struct SetupOptions
    {
        std::optional<std::size_t> cqDepth;
        Transport transport = Transport::Auto;
        // Host flows ignore it.
        DevicePayloads devicePayloads = DevicePayloads::Auto;
        // Absent: every initiator may connect. Initiators ignore it.
        std::optional<std::vector<AddressPrefix>> allowInitiators;
        // Target: connection requests must prove them (signing/AdmissionProof.hpp); initiator: its requests prove the
        // current key. Absent: no proof is asked or given.
        std::optional<signing::SigningKeys> admissionKeys;
        // Initiator: connection requests without a proof carry the ticket's target id and epoch
        // (protocol/IncarnationMark.hpp), which a target restarted at the ticket's address refuses; off, a ticket
        // connects to whatever target comes back at its address, as the SDK's initiators do. Targets ignore it (they
        // always refuse a mark of another incarnation).
        bool incarnationMark = false;

        // Not JSON, not an object, cqDepth not a number or below 1, transport or devicePayloads not one of its names,
        // allowInitiators not a non-empty array of addresses and prefixes, admissionKeyFile not a usable key file,
        // incarnationMark not true or false →
        // MXL_ERR_INVALID_ARG.
        static SetupOptions parse(char const* text);
        // The transport of options that name none: $MXL_FABRICS_TRANSPORT, else auto (as $MXL_FABRICS_BACKEND names the
        // backend of instances whose options name none, so that a suite or an SDK program runs on msg unchanged).
        static Transport defaultTransport();
        // The same for devicePayloads: $MXL_FABRICS_DEVICE_PAYLOADS, else auto (so that a demo or a service process is
        // told without an option of its own).
        static DevicePayloads defaultDevicePayloads();
    };
}
