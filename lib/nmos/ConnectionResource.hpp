// One IS-05 sender or receiver of the Connection API: its staged and active documents, PATCHes of staged, and
// activations (immediate, scheduled absolute or relative). No HTTP and no clock of its own: callers pass the TAI time
// (nanoseconds) and perform scheduled activations when scheduledFor() has come.
//
// The transport has one leg, as BCP-007-03 ("NMOS With MXL") has it: `mxl_domain_id` and `mxl_flow_id`, and the
// fabrics hop's own parameters as `ext_` names.
#pragma once

#include "NodeResources.hpp"
#include "common/CodedError.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mxl::nmos
{
    // A request the Connection API refuses: the HTTP status and the messages of the NMOS error document.
    class ConnectionError : public CodedError<int>
    {
    public:
        ConnectionError(int status, std::string const& error, std::string debug = {});

        [[nodiscard]] int status() const noexcept
        {
            return code();
        }

        // {code, error, debug} as is-05-v1.1/error.json has it.
        [[nodiscard]] nlohmann::json document() const;

    private:
        std::string _debug;
    };

    struct TransportParam
    {
        std::string name;
        nlohmann::json initial;
        // The constraint the constraints endpoint shows ({} for none).
        nlohmann::json constraint = nlohmann::json::object();
        // Why a PATCHed value is refused, or an empty string when it is accepted.
        std::function<std::string(nlohmann::json const&)> check;
        // What a staged "auto" becomes in active: BCP-007-03 allows "auto" in staged, never in active. Null where the
        // parameter takes no "auto" (check() refuses it).
        nlohmann::json autoValue = nullptr;
    };

    class ConnectionResource
    {
    public:
        ConnectionResource(Role role, std::vector<TransportParam> params, bool masterEnable);

        [[nodiscard]] nlohmann::json staged() const;
        [[nodiscard]] nlohmann::json active() const;
        [[nodiscard]] nlohmann::json constraints() const;

        struct PatchOutcome
        {
            // 200, or 202 for an activation scheduled in the future.
            int status;
            nlohmann::json body;
        };

        // Applies `body` to staged as a whole or not at all. Throws ConnectionError: 400 for a malformed body, 423
        // while a scheduled activation is pending and the body does not cancel it (activation mode null).
        PatchOutcome patch(nlohmann::json const& body, std::uint64_t nowTaiNs);

        // When the pending scheduled activation is due (TAI ns), or nullopt.
        [[nodiscard]] std::optional<std::uint64_t> scheduledFor() const noexcept
        {
            return _scheduledFor;
        }

        // Performs the pending scheduled activation when it is due; true when it did.
        bool activateIfDue(std::uint64_t nowTaiNs);

        // How many activations happened: a changed count means active changed.
        [[nodiscard]] std::uint64_t activations() const noexcept
        {
            return _activations;
        }

    private:
        struct Settings
        {
            // sender_id (receiver) or receiver_id (sender): a UUID or null.
            nlohmann::json peerId;
            bool masterEnable = false;
            nlohmann::json params;
        };

        Role _role;
        std::vector<TransportParam> _params;
        Settings _staged;
        Settings _active;
        nlohmann::json _stagedActivation;
        nlohmann::json _activeActivation;
        std::optional<std::uint64_t> _scheduledFor;
        std::uint64_t _activations = 0;

        [[nodiscard]] nlohmann::json document(Settings const& settings, nlohmann::json const& activation) const;
        [[nodiscard]] Settings merged(nlohmann::json const& body) const;
        void activate(std::uint64_t nowTaiNs);
    };
}
