// HTTP requests as the services answer them: the request-target check of HttpEndpoint, then HttpRoutes with /ticket,
// /metrics, the IS-04 Node API and the IS-05 Connection API of a receiver and of a sender (PATCH of staged/, bulk
// POST, every path below).
// Input: the method, a space, the request target, a newline, then the body. Every request must be answered (no
// exception), with a status from 200 to 599, JSON that parses where the reply says it is JSON, and an NMOS error
// document with the same code on errors.
#include "FuzzCheck.hpp"
#include "FuzzEntry.hpp"
#include <ConnectionApi.hpp>
#include <HttpRequestCheck.hpp>
#include <HttpRoutes.hpp>
#include <NodeApi.hpp>

#include <MxlTransport.hpp>
#include <directory/Ticket.hpp>

#include <nlohmann/json.hpp>

#include <memory>
#include <string_view>

using mxl::fuzz::check;
using namespace mxl;

namespace
{
    constexpr auto receiverId = "9a3c1d2e-4b5f-4a6d-8e7f-0a1b2c3d4e5f";
    constexpr auto senderId = "1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9";

    constexpr auto domainId = "0b4e8f2c-6f3a-4c1d-9e7b-3a5d2c1f0e9a";
    constexpr auto flowId = "7a1c52e4-3d0b-4f6e-9c8a-51b2e0d47f19";

    std::vector<mxl::nmos::TransportParam> receiverParams(std::string const&)
    {
        auto params = mxl::nmos::mxlParams(mxl::nmos::Role::Receiver, domainId, flowId);
        params.push_back(mxl::nmos::senderApiParam(mxl::nmos::Role::Receiver, {}));
        return params;
    }

    std::vector<mxl::nmos::TransportParam> senderParams(std::string const& url)
    {
        auto params = mxl::nmos::mxlParams(mxl::nmos::Role::Sender, domainId, flowId);
        params.insert(params.end(), {mxl::nmos::senderApiParam(mxl::nmos::Role::Sender, url),
                                     {"ext_mxl_target_ticket", nullptr, nlohmann::json::object(),
                                      [](nlohmann::json const& value)
                                      {
                                          std::string why = "expected a ticket";
                                          return value.is_null() ||
                                                         (value.is_string() && mxl::directory::parseTicket(value.get<std::string>(), why))
                                                     ? std::string{}
                                                     : why;
                                      }}});
        return params;
    }

    // The services' test flow (tests/service/data), as a target receives into it and an initiator sends it.
    constexpr auto flowDefinition = R"({"id": "7a1c52e4-3d0b-4f6e-9c8a-51b2e0d47f19", "label": "Fuzz video",
        "description": "http-routes harness", "format": "urn:x-nmos:format:video", "tags": {}, "parents": [],
        "grain_rate": {"numerator": 50, "denominator": 1}, "frame_width": 320, "frame_height": 180,
        "interlace_mode": "progressive", "media_type": "video/v210"})";

    struct Services
    {
        std::unique_ptr<mxl::nmos::ConnectionApi> receiver =
            std::make_unique<mxl::nmos::ConnectionApi>(mxl::nmos::Role::Receiver, receiverId, "127.0.0.1", false, receiverParams);
        std::unique_ptr<mxl::nmos::ConnectionApi> sender =
            std::make_unique<mxl::nmos::ConnectionApi>(mxl::nmos::Role::Sender, senderId, "127.0.0.1", true, senderParams);
        std::map<std::string, HttpResource> targetResources{
            {"/ticket", {"application/json", [] { return std::optional<std::string>{R"({"provider":"tcp"})"}; }}},
            {"/metrics", {"text/plain", [] { return std::optional<std::string>{"mxl_grains_total 1\n"}; }}}};
        std::map<std::string, HttpResource> initiatorResources{{"/metrics", {"text/plain", [] { return std::optional<std::string>{}; }}}};
        mxl::nmos::NodeApi receiverNode{
            mxl::nmos::Role::Receiver, flowDefinition, "/dev/shm/mxl-fuzz", "127.0.0.1", false, targetResources};
        mxl::nmos::NodeApi senderNode{mxl::nmos::Role::Sender, flowDefinition, "/dev/shm/mxl-fuzz", "127.0.0.1", true, initiatorResources};
        std::unique_ptr<HttpRoutes> target;
        std::unique_ptr<HttpRoutes> initiator;

        Services()
        {
            receiver->start(8470, false);
            sender->start(8471, false);
            receiverNode.start(8470, false);
            senderNode.start(8471, false);
            target = std::make_unique<HttpRoutes>(targetResources, std::map<std::string, HttpHandler>{{mxl::nmos::ConnectionApi::pathPrefix,
                                                                                                       [this](HttpRequest const& request) {
                                                                                                           return receiver->handle(request);
                                                                                                       }}});
            initiator =
                std::make_unique<HttpRoutes>(initiatorResources, std::map<std::string, HttpHandler>{{mxl::nmos::ConnectionApi::pathPrefix,
                                                                                                     [this](HttpRequest const& request)
                                                                                                     { return sender->handle(request); }}});
        }
    };

    void checkReply(HttpReply const& reply)
    {
        check(reply.status >= 200 && reply.status <= 599, "a status from 200 to 599");
        if (reply.contentType != "application/json")
        {
            return;
        }
        auto const document = nlohmann::json::parse(reply.body, nullptr, false);
        check(!document.is_discarded(), "a JSON reply parses");
        if (reply.status >= 400)
        {
            check(document.is_object() && document.value("code", 0U) == reply.status, "an error document carries its status as code");
        }
    }
}

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size)
{
    static Services services;
    std::string_view const input{reinterpret_cast<char const*>(data), size};
    auto const space = input.find(' ');
    auto const newline = input.find('\n');
    if (space == std::string_view::npos || newline == std::string_view::npos || newline < space)
    {
        return 0;
    }
    HttpRequest request{std::string{input.substr(0, space)}, std::string{input.substr(space + 1, newline - space - 1)},
                        std::string{input.substr(newline + 1)}};
    // HttpEndpoint refuses a malformed target before any route; a well-formed one is what routes see.
    if (!requestTargetProblem(request.path).empty() || !headerProblem("X-Fuzz", request.method).empty())
    {
        return 0;
    }
    try
    {
        checkReply(services.target->answer(request));
        checkReply(services.initiator->answer(request));
    }
    catch (std::bad_alloc const&)
    {
        throw;
    }
    catch (...)
    {
        check(false, "every request is answered, never thrown out of the routes");
    }
    return 0;
}
