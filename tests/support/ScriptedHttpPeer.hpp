// A misbehaving peer on loopback (an etcd, a ticket server): an HTTP endpoint that answers every request as the test's
// script says, the script changeable while it serves, and the requests counted by path so that a test waits on the
// peer having been asked, not on time.
#pragma once

#include <HttpEndpoint.hpp>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <string>

namespace mxl::test
{
    class ScriptedHttpPeer
    {
    public:
        using Script = std::function<HttpReply(HttpRequest const&)>;

        explicit ScriptedHttpPeer(Script script);

        void script(Script script);

        // "127.0.0.1:PORT"
        [[nodiscard]] std::string endpoint() const;

        [[nodiscard]] std::size_t requests(std::string const& path) const;

        // Whether `path` has been asked `count` times within `within`.
        bool waitForRequests(std::string const& path, std::size_t count, std::chrono::milliseconds within) const;

    private:
        mutable std::mutex _mutex;
        mutable std::condition_variable _asked;
        Script _script;
        std::map<std::string, std::size_t> _requests;
        // Last, so that it stops answering before the members it reads go.
        HttpEndpoint _endpoint;

        HttpReply answer(HttpRequest const& request);
    };
}
