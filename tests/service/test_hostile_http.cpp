// Hostile HTTP against both services while grains move: malformed framing, headers, lengths and encodings, bodies that
// are not what they claim, deep and huge JSON, wrong types, unknown ids, writes to read-only resources, tickets and
// activation times that cannot be used, slow and flooding clients. Each case asserts the answer; after each, both
// services are alive, and at the end grains have kept moving byte-exact.
#include "RawHttp.hpp"
#include "ServiceScenario.hpp"
#include "TestFlow.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace mxl::test
{
    namespace
    {
        using namespace std::chrono_literals;
        using json = nlohmann::json;

        constexpr char const* connection = "/x-nmos/connection/v1.1";

        struct Ends
        {
            std::string receiverId;
            std::string senderId;
            std::string targetTicket;
        };

        struct HostileCase
        {
            char const* name;
            // Which service it is sent to: 't' the target, 'i' the initiator, 'b' both.
            char role;
            std::function<std::string(Ends const&, char role)> bytes;
            // Any of these answers it; 0 stands for a connection closed without a response.
            std::set<int> expected;
            // When not empty, the body must contain it.
            std::string says;
        };

        std::string staged(Ends const& ends, char role)
        {
            return role == 't' ? fmt::format("{}/single/receivers/{}/staged", connection, ends.receiverId)
                               : fmt::format("{}/single/senders/{}/staged", connection, ends.senderId);
        }

        // piece(0), piece(1) .. piece(count - 1), one after another.
        std::string concatenated(std::size_t count, std::function<std::string(std::size_t)> const& piece)
        {
            std::string text;
            for (std::size_t i = 0; i < count; ++i)
            {
                text += piece(i);
            }
            return text;
        }

        // The same bytes whatever the ends and the role.
        std::function<std::string(Ends const&, char)> fixedBody(std::string body)
        {
            return [body = std::move(body)](Ends const&, char) { return body; };
        }

        // A staged PATCH body that sets the transport parameter `key` to `value`.
        std::string transportParams(char const* key, json const& value)
        {
            return json{{"transport_params", {{{key, value}}}}}.dump();
        }

        // A staged PATCH body that hands the initiator the target's own ticket, changed by `edit`.
        std::function<std::string(Ends const&, char)> editedTicket(std::function<void(json&)> edit)
        {
            return [edit = std::move(edit)](Ends const& ends, char)
            {
                auto ticket = json::parse(ends.targetTicket);
                edit(ticket);
                return transportParams("ext_mxl_target_ticket", ticket.dump());
            };
        }

        // The body is PATCHed to the staged resource of each role given.
        std::vector<HostileCase> patchCases()
        {
            return {
                {"PATCH body not JSON", 'b', fixedBody("{not json"), {400}, "the body is not JSON"},
                {"PATCH body empty", 'b', fixedBody(""), {400}, ""},
                {"PATCH body a JSON array", 'b', fixedBody("[]"), {400}, "expected a JSON object"},
                {"PATCH body nested 30000 arrays deep",
                 'b',
                 fixedBody(std::string(30000, '[') + std::string(30000, ']')),
                 {400},
                 "nests deeper than"},
                {"PATCH body nested objects 100 deep",
                 'b',
                 fixedBody(concatenated(100, [](std::size_t) { return "{\"a\":"; }) + "1" + std::string(100, '}')),
                 {400},
                 "nests deeper than"},
                {"PATCH string that is not UTF-8", 'b', fixedBody("{\"master_enable\":\"\xff\xfe\"}"), {400}, ""},
                {"PATCH number too large for a double", 'b', fixedBody("{\"master_enable\":1e999}"), {400}, ""},
                {"PATCH master_enable a string", 'b', fixedBody(R"({"master_enable":"yes"})"), {400}, "master_enable"},
                {"PATCH unknown key", 'b', fixedBody(R"({"colour":"red"})"), {400}, "colour"},
                {"PATCH receiver_id not a UUID", 'i', fixedBody(R"({"receiver_id":"../../etc"})"), {400}, "UUID"},
                {"PATCH sender_id a number", 't', fixedBody(R"({"sender_id":7})"), {400}, "UUID"},
                {"PATCH transport_params an object", 'b', fixedBody(R"({"transport_params":{}})"), {400}, "transport_params"},
                {"PATCH transport_params with two legs", 'b', fixedBody(R"({"transport_params":[{},{}]})"), {400}, "transport_params"},
                {"PATCH activation mode unknown", 'b', fixedBody(R"({"activation":{"mode":"now"}})"), {400}, "mode"},
                {"PATCH activation not an object", 'b', fixedBody(R"({"activation":true})"), {400}, "activation"},
                {"PATCH relative activation past the end of TAI",
                 'b',
                 fixedBody(R"({"activation":{"mode":"activate_scheduled_relative","requested_time":"18446744072:0"}})"),
                 {400},
                 "too far ahead"},
                {"PATCH relative activation of 2^64-1 s",
                 'b',
                 fixedBody(R"({"activation":{"mode":"activate_scheduled_relative","requested_time":"18446744073709551615:0"}})"),
                 {400},
                 "requested_time"},
                {"PATCH absolute activation with nanoseconds of 10^9",
                 'b',
                 fixedBody(R"({"activation":{"mode":"activate_scheduled_absolute","requested_time":"5:1000000000"}})"),
                 {400},
                 "requested_time"},
                {"PATCH activation time a number",
                 'b',
                 fixedBody(R"({"activation":{"mode":"activate_scheduled_absolute","requested_time":5}})"),
                 {400},
                 "requested_time"},
                {"PATCH activation time negative",
                 'b',
                 fixedBody(R"({"activation":{"mode":"activate_scheduled_relative","requested_time":"-1:0"}})"),
                 {400},
                 "requested_time"},
                {"PATCH ticket that is a JSON object, not a ticket",
                 'i',
                 fixedBody(transportParams("ext_mxl_target_ticket", R"({"provider":"tcp"})")),
                 {400},
                 "ext_mxl_target_ticket"},
                {"PATCH ticket that is not JSON text",
                 'i',
                 fixedBody(transportParams("ext_mxl_target_ticket", "garbage")),
                 {400},
                 "ext_mxl_target_ticket"},
                {"PATCH ticket that is a number",
                 'i',
                 fixedBody(transportParams("ext_mxl_target_ticket", 42)),
                 {400},
                 "ext_mxl_target_ticket"},
                {"PATCH ticket of another provider",
                 'i',
                 editedTicket([](json& ticket) { ticket["provider"] = "verbs"; }),
                 {400},
                 "provider"},
                {"PATCH ticket with its regions cut away",
                 'i',
                 editedTicket([](json& ticket) { ticket.erase("regions"); }),
                 {400},
                 "ext_mxl_target_ticket"},
                {"PATCH this sender's own API moved",
                 'i',
                 fixedBody(transportParams("ext_mxl_sender_api", "http://192.0.2.1:1/x")),
                 {400},
                 "ext_mxl_sender_api"},
                {"PATCH sender API that is not http",
                 't',
                 fixedBody(transportParams("ext_mxl_sender_api", "ftp://127.0.0.1/x")),
                 {400},
                 "ext_mxl_sender_api"},
                {"PATCH sender API a number", 't', fixedBody(transportParams("ext_mxl_sender_api", 1)), {400}, "ext_mxl_sender_api"},
                {"PATCH unknown transport parameter", 'b', fixedBody(transportParams("destination_ip", "127.0.0.1")), {400}, ""},
            };
        }

        std::vector<HostileCase> requestCases()
        {
            auto const raw = [](std::string bytes) { return [bytes](Ends const&, char) { return bytes; }; };
            return {
                {"path not UTF-8 (%FF%FE)",
                 'b',
                 raw(rawRequest("GET", std::string{connection} + "/single/receivers/%FF%FE/staged")),
                 {400},
                 "not UTF-8"},
                {"path with %00", 'b', raw(rawRequest("GET", "/ticket%00.json")), {400}, "control byte"},
                {"path with %0A", 'b', raw(rawRequest("GET", "/x-nmos/%0A/")), {400}, "control byte"},
                {"path with a raw 0x01 byte", 'b', raw(rawRequest("GET", "/x\x01y")), {400}, ""},
                {"path with a raw 0xFF byte", 'b', raw(rawRequest("GET", "/x\xffy")), {400}, ""},
                {"bad percent-encoding %G1", 'b', raw(rawRequest("GET", "/x%G1")), {400}, "hex digits"},
                {"truncated percent-encoding", 'b', raw(rawRequest("GET", "/x%4")), {400}, "hex digits"},
                {"query with a bare %", 'b', raw(rawRequest("GET", "/x-nmos/?a=%")), {400}, "hex digits"},
                {"HTTP/1.1 without Host", 'b', raw("GET /x-nmos/ HTTP/1.1\r\nConnection: close\r\n\r\n"), {400}, ""},
                // libmicrohttpd 0.9.75 ends a header value at a NUL and drops the rest of the line (docs/operations.md): what
                // reaches the service is a well-formed request.
                {"header value with a NUL byte",
                 'b',
                 raw(rawRequest("GET", "/x-nmos/", "", std::string{"X-Evil: a\0b\r\n", 13})),
                 {200},
                 ""},
                {"header value with a control byte", 'b', raw(rawRequest("GET", "/x-nmos/", "", "X-Evil: a\x07z\r\n")), {400}, ""},
                {"header without a colon", 'b', raw(rawRequest("GET", "/x-nmos/", "", "NoColonHere\r\n")), {400}, ""},
                {"header name with a space", 'b', raw(rawRequest("GET", "/x-nmos/", "", "Bad Name: x\r\n")), {400}, ""},
                {"one header of 40 KiB",
                 'b',
                 raw(rawRequest("GET", "/x-nmos/", "", "X-Big: " + std::string(40 * 1024, 'a') + "\r\n")),
                 {431, 400, 413, 0},
                 ""},
                {"2000 small headers",
                 'b',
                 raw(rawRequest("GET", "/x-nmos/", "", concatenated(2000, [](std::size_t i) { return fmt::format("X-H{}: v\r\n", i); }))),
                 {431, 400, 413, 0},
                 ""},
                {"request target of 40 KiB", 'b', raw(rawRequest("GET", "/" + std::string(40 * 1024, 'a'))), {414, 431, 400, 0}, ""},
                {"body over 64 KiB",
                 'b',
                 [](Ends const& ends, char role) { return rawRequest("PATCH", staged(ends, role), std::string(70 * 1024, ' ')); },
                 {413},
                 "larger than"},
                {"body over 64 KiB announced with Expect: 100-continue",
                 'b',
                 raw(fmt::format(
                     "PATCH /x-nmos/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\nExpect: 100-continue\r\nContent-Length: {}\r\n\r\n",
                     10 * 1024 * 1024)),
                 {413, 0},
                 ""},
                {"negative Content-Length",
                 'b',
                 raw("PATCH /x-nmos/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: -5\r\n\r\nabc"),
                 {400, 413},
                 ""},
                {"Content-Length not a number",
                 'b',
                 raw("PATCH /x-nmos/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: ten\r\n\r\nabc"),
                 {400, 413},
                 ""},
                {"Content-Length past 2^64",
                 'b',
                 raw("PATCH /x-nmos/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 99999999999999999999999\r\n\r\nabc"),
                 {400, 413},
                 ""},
                {"two Content-Length headers that differ",
                 'b',
                 raw("PATCH /x-nmos/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 2\r\ncontent-length: "
                     "7\r\n\r\n{}{\"a\":1}"),
                 {400},
                 "2 Content-Length headers"},
                {"Content-Length beside Transfer-Encoding: chunked",
                 'b',
                 raw("PATCH /x-nmos/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 2\r\nTransfer-Encoding: "
                     "chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"),
                 {400},
                 "both Content-Length and Transfer-Encoding"},
                {"chunked body with a bad chunk size",
                 'b',
                 raw("PATCH /x-nmos/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\nTransfer-Encoding: "
                     "chunked\r\n\r\nZZZ\r\nabc\r\n0\r\n\r\n"),
                 {400, 0},
                 ""},
                {"Content-Length longer than the body, then close",
                 'b',
                 raw("PATCH /x-nmos/ HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"a\""),
                 {0, 400, 408},
                 ""},
                {"request line without a version", 'b', raw("GET /x-nmos/\r\n\r\n"), {400, 0, 505}, ""},
                {"HTTP/2.0 in the request line", 'b', raw("GET /x-nmos/ HTTP/2.0\r\nHost: x\r\n\r\n"), {505, 400}, ""},
                {"4 KiB of binary garbage",
                 'b',
                 raw(concatenated(4096, [](std::size_t i) { return std::string(1, static_cast<char>((i * 2654435761U) >> 13)); })),
                 {400, 0, 505, 501},
                 ""},
                {"unknown method", 'b', raw(rawRequest("BREW", "/x-nmos/")), {405, 404, 501}, ""},
                {"OPTIONS preflight",
                 'b',
                 raw(rawRequest(
                     "OPTIONS", std::string{connection} + "/single/", "",
                     "Origin: http://ctl\r\nAccess-Control-Request-Method: PATCH\r\nAccess-Control-Request-Headers: content-type\r\n")),
                 {200},
                 ""},
                {"unknown path", 'b', raw(rawRequest("GET", "/no/such/thing")), {404}, "no resource"},
                {"path traversal", 'b', raw(rawRequest("GET", "/x-nmos/../../etc/passwd")), {404}, ""},
                {"PUT to a Node API resource", 'b', raw(rawRequest("PUT", "/x-nmos/node/v1.3/self", "{}")), {405}, ""},
                {"DELETE of /metrics", 'b', raw(rawRequest("DELETE", "/metrics")), {405}, "only GET and HEAD"},
                {"POST to /ticket", 't', raw(rawRequest("POST", "/ticket", "{}")), {405}, "only GET and HEAD"},
                {"GET /ticket of an initiator", 'i', raw(rawRequest("GET", "/ticket")), {404}, "no resource"},
                {"PATCH to active/",
                 'b',
                 [](Ends const& ends, char role)
                 {
                     auto path = staged(ends, role);
                     return rawRequest("PATCH", path.replace(path.size() - 6, 6, "active"), "{}");
                 },
                 {405},
                 ""},
                {"GET staged of an unknown receiver",
                 'b',
                 raw(rawRequest("GET", std::string{connection} + "/single/receivers/00000000-0000-4000-8000-000000000000/staged")),
                 {404},
                 ""},
                {"bulk POST of an object", 'b', raw(rawRequest("POST", std::string{connection} + "/bulk/receivers", "{}")), {400}, "array"},
                {"bulk POST with a malformed entry",
                 'b',
                 raw(rawRequest("POST", std::string{connection} + "/bulk/senders", R"([{"id":1}])")),
                 {400},
                 "entry 0"},
                {"bulk POST of 30000 nested arrays",
                 'b',
                 raw(rawRequest("POST", std::string{connection} + "/bulk/senders", std::string(30000, '[') + std::string(30000, ']'))),
                 {400},
                 ""},
                {"GET of bulk/", 'b', raw(rawRequest("GET", std::string{connection} + "/bulk/senders")), {405}, ""},
            };
        }

        bool alive(ServiceProcess& service)
        {
            service.output(std::chrono::milliseconds{0});
            return !service.wait(std::chrono::milliseconds{0});
        }

        std::string readFile(std::string const& path)
        {
            std::ifstream file{path};
            std::stringstream text;
            text << file.rdbuf();
            return text.str();
        }

        // The Connection API id of the one sender or receiver of a service.
        std::string endpointId(int port, char const* kind)
        {
            auto const answer = rawExchange(port, rawRequest("GET", fmt::format("{}/single/{}/", connection, kind)));
            REQUIRE(answer.status == 200);
            auto const list = json::parse(answer.body);
            REQUIRE(list.size() == 1);
            auto id = list[0].get<std::string>();
            id.pop_back();
            return id;
        }

        void runCase(HostileCase const& hostile, Ends const& ends, char role, int port, ServiceProcess& target, ServiceProcess& initiator)
        {
            auto const answer = rawExchange(port, hostile.bytes(ends, role));
            INFO("case: ", std::string{hostile.name}, " (", std::string{role == 't' ? "target" : "initiator"}, ")");
            INFO("answer: ", answer.status, " ", answer.body);
            CHECK(hostile.expected.contains(answer.status));
            // What libmicrohttpd refuses itself (malformed framing, a head past its memory limit) it answers with its own
            // page; every answer of the service's allows any origin, and its errors are NMOS error documents.
            bool const fromService = answer.header("Content-Type") == "application/json" || answer.status == 200;
            if (!fromService)
            {
                CHECK(std::set<int>{0, 400, 413, 414, 431, 501, 505}.contains(answer.status));
                CHECK(hostile.says.empty());
            }
            else
            {
                CHECK(answer.header("Access-Control-Allow-Origin") == "*");
            }
            if (fromService && answer.status >= 400)
            {
                auto const document = json::parse(answer.body, nullptr, false);
                CHECK(document.is_object());
                CHECK(document.value("code", 0) == answer.status);
                CHECK(document.contains("error"));
            }
            if (!hostile.says.empty())
            {
                CHECK(answer.body.find(hostile.says) != std::string::npos);
            }
            REQUIRE_MESSAGE(alive(target), target.output());
            REQUIRE_MESSAGE(alive(initiator), initiator.output());
        }

        // Both services with HTTP, the initiator sending to the target by its ticket file; grains checked.
        struct HostilePair
        {
            ServiceDirectories directories;
            PatternSource source{directories.source.path(), serviceTestFlow()};
            NotifySocket targetNotify;
            ServiceProcess target{targetSettings(directories, "127.0.0.1"), notifyEnvironment(targetNotify)};
            int targetPort = target.httpPort();
            ServiceProcess initiator{withHttp(initiatorSettings(directories, directories.ticketFile()))};
            int initiatorPort = initiator.httpPort();
            Ends ends;

            HostilePair()
            {
                REQUIRE(targetNotify.waitFor("READY=1", 10s));
                REQUIRE(targetPort != 0);
                REQUIRE(initiatorPort != 0);
                ends = {endpointId(targetPort, "receivers"), endpointId(initiatorPort, "senders"), readFile(directories.ticketFile())};
            }

            static Settings withHttp(Settings settings)
            {
                settings.emplace_back("http_listen", "127.0.0.1:0");
                return settings;
            }

            void sendAll(std::vector<HostileCase> const& cases, std::function<std::string(HostileCase const&, char)> const& frame)
            {
                for (auto const& hostile : cases)
                {
                    for (char const role : {'t', 'i'})
                    {
                        if (hostile.role != 'b' && hostile.role != role)
                        {
                            continue;
                        }
                        HostileCase framed{hostile.name, role, [&](Ends const&, char) { return frame(hostile, role); }, hostile.expected,
                                           hostile.says};
                        runCase(framed, ends, role, role == 't' ? targetPort : initiatorPort, target, initiator);
                    }
                }
            }
        };

        void requireFlowing(FlowChecker& verifier, std::uint64_t grains, HostilePair& pair)
        {
            auto const result = verifier.check(grains, 10s);
            INFO("target: ", pair.target.output());
            INFO("initiator: ", pair.initiator.output());
            CHECK(result.mismatched == 0);
            REQUIRE(result.verified >= grains);
        }
    }

    TEST_CASE("hostile HTTP: every malformed request and body is answered, both services stay alive, grains keep moving byte-exact")
    {
        HostilePair pair;
        FlowChecker verifier{pair.directories.destination.path(), serviceTestFlowId};
        requireFlowing(verifier, 20, pair);

        auto const requests = requestCases();
        auto const patches = patchCases();
        CHECK(requests.size() + patches.size() >= 60);
        pair.sendAll(requests, [&](HostileCase const& hostile, char role) { return hostile.bytes(pair.ends, role); });
        requireFlowing(verifier, 20, pair);
        pair.sendAll(patches, [&](HostileCase const& hostile, char role)
                     { return rawRequest("PATCH", staged(pair.ends, role), hostile.bytes(pair.ends, role)); });
        requireFlowing(verifier, 50, pair);

        // Nothing that was refused was staged: both still show what they had.
        auto const targetStaged = rawExchange(pair.targetPort, rawRequest("GET", staged(pair.ends, 't')));
        REQUIRE(targetStaged.status == 200);
        CHECK(json::parse(targetStaged.body)["transport_params"][0]["ext_mxl_sender_api"].is_null());
        auto const initiatorStaged = rawExchange(pair.initiatorPort, rawRequest("GET", staged(pair.ends, 'i')));
        REQUIRE(initiatorStaged.status == 200);
        CHECK(json::parse(initiatorStaged.body)["transport_params"][0]["ext_mxl_target_ticket"].is_null());
    }

    TEST_CASE("hostile HTTP: slow, pipelining and flooding clients are bounded while grains keep moving")
    {
        HostilePair pair;
        FlowChecker verifier{pair.directories.destination.path(), serviceTestFlowId};
        requireFlowing(verifier, 20, pair);

        for (int const port : {pair.targetPort, pair.initiatorPort})
        {
            // A flood of connections past the limit, each sending half a request line and then nothing.
            std::vector<int> flood;
            for (int i = 0; i < 100; ++i)
            {
                auto const fd = connectLoopback(port);
                if (fd >= 0)
                {
                    ::send(fd, "GET /x-n", 8, MSG_NOSIGNAL);
                    flood.push_back(fd);
                }
            }
            requireFlowing(verifier, 10, pair);
            for (auto const fd : flood)
            {
                ::close(fd);
            }
            // Once the flood is gone, a normal request is answered again (the server may need a moment to reap them).
            RawAnswer answer;
            for (int attempt = 0; attempt < 50 && answer.status != 200; ++attempt)
            {
                answer = rawExchange(port, rawRequest("GET", "/metrics"), 2s);
            }
            CHECK(answer.status == 200);

            // Slow clients from two other addresses, each at its limit (32): a controller's request is still answered at
            // once, before the idle limit (5 s) would free anything.
            std::vector<int> slow;
            for (std::uint8_t const host : {std::uint8_t{2}, std::uint8_t{3}})
            {
                for (int i = 0; i < 32; ++i)
                {
                    auto const fd = connectLoopback(port, host);
                    REQUIRE(fd >= 0);
                    ::send(fd, "GET /x-n", 8, MSG_NOSIGNAL);
                    slow.push_back(fd);
                }
            }
            CHECK(rawExchange(port, rawRequest("GET", "/metrics"), 3s).status == 200);
            for (auto const fd : slow)
            {
                ::close(fd);
            }

            // Ten requests pipelined on one connection: all ten answered, in order.
            std::string pipelined;
            for (int i = 0; i < 10; ++i)
            {
                pipelined += fmt::format("GET /x-nmos/ HTTP/1.1\r\nHost: x\r\n{}\r\n", i == 9 ? "Connection: close\r\n" : "");
            }
            auto const fd = connectLoopback(port);
            REQUIRE(fd >= 0);
            ::send(fd, pipelined.data(), pipelined.size(), MSG_NOSIGNAL);
            std::string received;
            char buffer[4096];
            auto const deadline = std::chrono::steady_clock::now() + 10s;
            while (std::chrono::steady_clock::now() < deadline)
            {
                auto const n = ::recv(fd, buffer, sizeof buffer, 0);
                if (n <= 0)
                {
                    break;
                }
                received.append(buffer, static_cast<std::size_t>(n));
            }
            ::close(fd);
            std::size_t answers = 0;
            for (auto at = received.find("HTTP/1.1 200"); at != std::string::npos; at = received.find("HTTP/1.1 200", at + 1))
            {
                ++answers;
            }
            CHECK(answers == 10);
        }

        // A client that sends half a request and then waits is cut off after the idle limit (5 s), not held forever.
        auto const started = std::chrono::steady_clock::now();
        auto const slow = rawExchange(pair.targetPort, "GET /x-nmos/ HTTP/1.1\r\nHost: x\r\n", 30s);
        auto const heldSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        CHECK(slow.status == 0);
        CHECK(heldSeconds < 25.0);

        // Refusals cost the log less than the client sends: a bulk of 1,000 unknown ids is one line, and a path of 30,000
        // bytes is quoted cut.
        auto bulk = json::array();
        for (int i = 0; i < 1000; ++i)
        {
            bulk.push_back({{"id", fmt::format("unknown-{}", i)}, {"params", json::object()}});
        }
        auto const bulkAnswer = rawExchange(pair.targetPort, rawRequest("POST", fmt::format("{}/bulk/receivers", connection), bulk.dump()));
        REQUIRE(bulkAnswer.status == 200);
        CHECK(json::parse(bulkAnswer.body).size() == 1000);
        auto const longPath = fmt::format("{}/single/receivers/{}/staged", connection, std::string(30000, 'a'));
        CHECK(rawExchange(pair.targetPort, rawRequest("PATCH", longPath, "{}")).status == 404);
        REQUIRE(pair.target.waitForLine("bulk activation: 1000 of 1000 entries refused", 10s));
        auto const line = pair.target.waitForLine(fmt::format("({} bytes)", longPath.size()), 10s);
        REQUIRE(line);
        CHECK(line->size() < 1000);
        auto const log = pair.target.output();
        CHECK(log.find("unknown-999") == std::string::npos);

        REQUIRE(alive(pair.target));
        REQUIRE(alive(pair.initiator));
        requireFlowing(verifier, 50, pair);
    }
}
