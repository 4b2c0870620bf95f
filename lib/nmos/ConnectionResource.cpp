#include "ConnectionResource.hpp"

#include "TaiText.hpp"
#include "common/BoundedJson.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <regex>

namespace mxl::nmos
{
    namespace
    {
        using json = nlohmann::json;

        json idle()
        {
            return {{"mode", nullptr}, {"requested_time", nullptr}, {"activation_time", nullptr}};
        }

        void badRequest(std::string const& error)
        {
            throw ConnectionError{400, error};
        }

        bool isUuid(json const& value)
        {
            static std::regex const pattern{"^[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"};
            return value.is_string() && std::regex_match(value.get_ref<std::string const&>(), pattern);
        }

        // The activation a PATCH asks for: its mode ("" for mode null) and, for scheduled modes, the requested time.
        struct RequestedActivation
        {
            std::string mode;
            std::optional<std::uint64_t> requestedNs;
            std::string requestedText;
        };

        RequestedActivation requestedActivation(json const& activation)
        {
            if (!activation.is_object())
            {
                badRequest(
                    fmt::format("'activation' is {}; expected an object with 'mode' and 'requested_time'", mxl::quoteJson(activation)));
            }
            for (auto const& [key, value] : activation.items())
            {
                if (key != "mode" && key != "requested_time")
                {
                    badRequest(fmt::format("'activation' has the key '{}'; expected only 'mode' and 'requested_time'", key));
                }
            }
            auto const mode = activation.value("mode", json{});
            if (mode.is_null())
            {
                return {};
            }
            if (mode != "activate_immediate" && mode != "activate_scheduled_absolute" && mode != "activate_scheduled_relative")
            {
                badRequest(fmt::format("activation mode {} is none of null, \"activate_immediate\", \"activate_scheduled_absolute\", "
                                       "\"activate_scheduled_relative\"",
                                       mxl::quoteJson(mode)));
            }
            RequestedActivation requested{mode.get<std::string>(), std::nullopt, {}};
            if (requested.mode == "activate_immediate")
            {
                return requested;
            }
            auto const time = activation.value("requested_time", json{});
            auto const parsed = time.is_string() ? parseTaiText(time.get<std::string>()) : std::nullopt;
            if (!parsed && time.is_string() && hasTaiForm(time.get<std::string>()))
            {
                badRequest(fmt::format("'requested_time' {} is {} past the last TAI time this API can hold ({})", mxl::quoteJson(time),
                                       requested.mode == "activate_scheduled_relative" ? "an offset" : "a time",
                                       taiText(std::numeric_limits<std::uint64_t>::max())));
            }
            if (!parsed)
            {
                badRequest(fmt::format("activation mode \"{}\" needs 'requested_time' as \"<seconds>:<nanoseconds>\" (TAI, nanoseconds "
                                       "below 1000000000); got {}",
                                       requested.mode, mxl::quoteJson(time)));
            }
            requested.requestedNs = parsed;
            requested.requestedText = time.get<std::string>();
            return requested;
        }
    }

    ConnectionError::ConnectionError(int status, std::string const& error, std::string debug)
        : CodedError{status, error}
        , _debug{std::move(debug)}
    {
    }

    json ConnectionError::document() const
    {
        return {{"code", code()}, {"error", what()}, {"debug", _debug.empty() ? json{} : json(_debug)}};
    }

    ConnectionResource::ConnectionResource(Role role, std::vector<TransportParam> params, bool masterEnable)
        : _role{role}
        , _params{std::move(params)}
        , _stagedActivation(idle())
        , _activeActivation(idle())
    {
        auto initial = json::object();
        for (auto const& param : _params)
        {
            initial[param.name] = param.initial;
        }
        _staged = Settings{nullptr, masterEnable, initial};
        _active = _staged;
    }

    json ConnectionResource::document(Settings const& settings, json const& activation) const
    {
        json document{{_role == Role::Receiver ? "sender_id" : "receiver_id", settings.peerId},
                      {"master_enable", settings.masterEnable},
                      {"activation", activation},
                      {"transport_params", json::array({settings.params})}};
        if (_role == Role::Receiver)
        {
            // The MXL transport has no transport file: the parameters carry everything.
            document["transport_file"] = {{"data", nullptr}, {"type", nullptr}};
        }
        return document;
    }

    json ConnectionResource::staged() const
    {
        return document(_staged, _stagedActivation);
    }

    json ConnectionResource::active() const
    {
        return document(_active, _activeActivation);
    }

    json ConnectionResource::constraints() const
    {
        auto leg = json::object();
        for (auto const& param : _params)
        {
            leg[param.name] = param.constraint;
        }
        return json::array({leg});
    }

    ConnectionResource::Settings ConnectionResource::merged(json const& body) const
    {
        auto const peerKey = _role == Role::Receiver ? "sender_id" : "receiver_id";
        auto settings = _staged;
        for (auto const& [key, value] : body.items())
        {
            if (key == peerKey)
            {
                if (!value.is_null() && !isUuid(value))
                {
                    badRequest(fmt::format("'{}' is {}; expected a UUID or null", key, mxl::quoteJson(value)));
                }
                settings.peerId = value;
            }
            else if (key == "master_enable")
            {
                if (!value.is_boolean())
                {
                    badRequest(fmt::format("'master_enable' is {}; expected true or false", mxl::quoteJson(value)));
                }
                settings.masterEnable = value.get<bool>();
            }
            else if (key == "transport_file" && _role == Role::Receiver)
            {
                if (!value.is_object() || !value.value("data", json{}).is_null() || !value.value("type", json{}).is_null())
                {
                    badRequest(fmt::format("'transport_file' is {}; the MXL transport has no transport file (data and type null), "
                                           "its transport_params carry everything",
                                           mxl::quoteJson(value)));
                }
            }
            else if (key == "transport_params")
            {
                if (!value.is_array() || value.size() != 1 || !value[0].is_object())
                {
                    badRequest(fmt::format("'transport_params' is {}; expected an array of one object (one leg)", mxl::quoteJson(value)));
                }
                for (auto const& item : value[0].items())
                {
                    auto const& name = item.key();
                    auto const& parameter = item.value();
                    auto const known = std::find_if(_params.begin(), _params.end(), [&](auto const& param) { return param.name == name; });
                    if (known == _params.end())
                    {
                        badRequest(fmt::format("transport parameter '{}' is not one of this {}'s ({})", name,
                                               _role == Role::Receiver ? "receiver" : "sender", mxl::quoteJson(constraints()[0])));
                    }
                    if (auto const why = known->check(parameter); !why.empty())
                    {
                        badRequest(fmt::format("transport parameter '{}' value {}: {}", name, mxl::quoteJson(parameter), why));
                    }
                    settings.params[name] = parameter;
                }
            }
            else if (key != "activation")
            {
                badRequest(
                    fmt::format("'{}' is not a key of a {}'s staged parameters", key, _role == Role::Receiver ? "receiver" : "sender"));
            }
        }
        return settings;
    }

    ConnectionResource::PatchOutcome ConnectionResource::patch(json const& body, std::uint64_t nowTaiNs)
    {
        if (!body.is_object())
        {
            badRequest(fmt::format("the body is {}; expected a JSON object", body.is_discarded() ? "not JSON" : body.type_name()));
        }
        auto const activation = body.find("activation");
        auto const requested = activation == body.end() ? std::nullopt : std::optional{requestedActivation(*activation)};
        bool const cancels = requested && requested->mode.empty();
        if (requested && requested->mode == "activate_scheduled_relative" &&
            *requested->requestedNs > std::numeric_limits<std::uint64_t>::max() - nowTaiNs)
        {
            badRequest(fmt::format("'requested_time' \"{}\" is too far ahead: now plus that offset is past the last TAI time this "
                                   "API can hold ({})",
                                   requested->requestedText, taiText(std::numeric_limits<std::uint64_t>::max())));
        }
        if (_scheduledFor && !cancels)
        {
            throw ConnectionError{423, fmt::format("the staged parameters are locked by the activation scheduled for {}; PATCH "
                                                   "{{\"activation\": {{\"mode\": null}}}} to cancel it",
                                                   taiText(*_scheduledFor))};
        }
        auto settings = merged(body);
        _staged = std::move(settings);
        if (cancels)
        {
            _scheduledFor.reset();
            _stagedActivation = idle();
        }
        if (!requested || cancels)
        {
            return {200, staged()};
        }
        if (requested->mode == "activate_immediate")
        {
            activate(nowTaiNs);
            return {200, document(_staged, _activeActivation)};
        }
        auto const at = requested->mode == "activate_scheduled_absolute" ? *requested->requestedNs : nowTaiNs + *requested->requestedNs;
        _stagedActivation = {{"mode", requested->mode}, {"requested_time", requested->requestedText}, {"activation_time", taiText(at)}};
        if (at <= nowTaiNs)
        {
            // "scheduled_absolute (when internal clock >= requested_time)": a time already past is met at once.
            activate(nowTaiNs);
            return {200, document(_staged, _activeActivation)};
        }
        _scheduledFor = at;
        return {202, staged()};
    }

    bool ConnectionResource::activateIfDue(std::uint64_t nowTaiNs)
    {
        if (!_scheduledFor || nowTaiNs < *_scheduledFor)
        {
            return false;
        }
        activate(nowTaiNs);
        return true;
    }

    void ConnectionResource::activate(std::uint64_t nowTaiNs)
    {
        _active = _staged;
        for (auto const& param : _params)
        {
            if (_active.params[param.name] == "auto" && !param.autoValue.is_null())
            {
                _active.params[param.name] = param.autoValue;
            }
        }
        auto const& staged = _stagedActivation;
        bool const scheduled = !staged["mode"].is_null();
        _activeActivation = {{"mode", scheduled ? staged["mode"] : json("activate_immediate")},
                             {"requested_time", scheduled ? staged["requested_time"] : json{}},
                             {"activation_time", taiText(nowTaiNs)}};
        _stagedActivation = idle();
        _scheduledFor.reset();
        ++_activations;
    }
}
