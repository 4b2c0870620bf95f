// The initiator service's side of IS-05 (BCP-007-03): the transport parameters its sender offers, with the target's
// ticket a controller hands over (checked when it is staged), and what an activation changes: the ticket the service
// fetches from, and whether it sends at all.
#include "InitiatorService.hpp"

#include "ServiceLog.hpp"
#include "ServiceNode.hpp"

#include <MxlTransport.hpp>

#include <fmt/format.h>

namespace mxl::service
{
    std::vector<nmos::TransportParam> InitiatorService::transportParams(std::optional<std::string> const& domainId,
                                                                        std::string const& resourceUrl) const
    {
        auto params = nmos::mxlParams(nmos::Role::Sender, domainId, _config.flowId);
        params.insert(params.end(), {nmos::senderApiParam(nmos::Role::Sender, resourceUrl),
                                     {"ext_mxl_target_ticket", nullptr, nlohmann::json::object(),
                                      [this](nlohmann::json const& value)
                                      {
                                          // Refused here, at PATCH time, rather than after the activation dropped the working target.
                                          if (value.is_null())
                                          {
                                              return std::string{};
                                          }
                                          if (!value.is_string())
                                          {
                                              return std::string{"expected the target's ticket as a JSON text, or null"};
                                          }
                                          std::string why;
                                          auto const ticket = _tickets.source().verifiedTicket(value.get<std::string>(), why);
                                          if (!ticket)
                                          {
                                              return fmt::format("not a usable ticket: {}", why);
                                          }
                                          auto const problem = _session.unusable(*ticket);
                                          return problem.empty() ? problem : fmt::format("this sender cannot use it: {}", problem);
                                      }}});
        return params;
    }

    void InitiatorService::applyActivation(Clock::time_point now)
    {
        auto const active = _nmos ? _nmos->takeActivated() : std::nullopt;
        if (!active)
        {
            return;
        }
        auto const& ticket = (*active)["transport_params"][0]["ext_mxl_target_ticket"];
        auto activatedTicket = ticket.is_string() ? std::optional{ticket.get<std::string>()} : std::nullopt;
        bool const enabled = (*active)["master_enable"].get<bool>();
        log::info("IS-05: sender {} activated: master_enable {}, receiver {}, {}", _nmos->endpointId(), enabled,
                  (*active)["receiver_id"].is_string() ? (*active)["receiver_id"].get<std::string>() : "none",
                  activatedTicket ? "its ticket handed over"
                                  : (_tickets.source().empty() ? "no ticket" : "no ticket handed over (the configured sources apply)"));
        // A receiver that let go leaves a target that is not to be written any more.
        bool const letGo = _activatedTicket && !activatedTicket;
        _activatedTicket = std::move(activatedTicket);
        if (!enabled && _enabled)
        {
            _session.dropTarget();
            _metrics.setState("disabled");
            log::info("IS-05: master_enable false: sending stopped (target removed); the staged and active parameters are kept");
        }
        else if (enabled && (letGo || !_enabled))
        {
            // Until a ticket is fetched, the service waits for one (a source that is gone reads "waiting" too).
            _session.dropTarget();
            _metrics.setState("waiting");
            if (letGo)
            {
                log::info("IS-05: the receiver took its ticket back: sending stopped (target removed)");
            }
        }
        if (enabled && !_activatedTicket && _tickets.source().empty())
        {
            log::info("IS-05: sender {} is enabled without a ticket (no receiver has handed one over, and no 'ticket' is configured): "
                      "waiting for a receiver's activation",
                      _nmos->endpointId());
        }
        _enabled = enabled;
        _nextTicketPoll = now;
    }
}
