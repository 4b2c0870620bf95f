#include "ScriptedHttpPeer.hpp"

#include <fmt/format.h>

namespace mxl::test
{
    ScriptedHttpPeer::ScriptedHttpPeer(Script script)
        : _script{std::move(script)}
        , _endpoint{
              ListenAddress{"127.0.0.1", 0, std::nullopt}, {}, {{"/", [this](HttpRequest const& request) { return answer(request); }}}}
    {
    }

    void ScriptedHttpPeer::script(Script script)
    {
        std::lock_guard lock{_mutex};
        _script = std::move(script);
    }

    std::string ScriptedHttpPeer::endpoint() const
    {
        return fmt::format("127.0.0.1:{}", _endpoint.port());
    }

    std::size_t ScriptedHttpPeer::requests(std::string const& path) const
    {
        std::lock_guard lock{_mutex};
        auto const found = _requests.find(path);
        return found == _requests.end() ? 0 : found->second;
    }

    bool ScriptedHttpPeer::waitForRequests(std::string const& path, std::size_t count, std::chrono::milliseconds within) const
    {
        std::unique_lock lock{_mutex};
        return _asked.wait_for(lock, within,
                               [&]
                               {
                                   auto const found = _requests.find(path);
                                   return found != _requests.end() && found->second >= count;
                               });
    }

    HttpReply ScriptedHttpPeer::answer(HttpRequest const& request)
    {
        Script script;
        {
            std::lock_guard lock{_mutex};
            ++_requests[request.path];
            script = _script;
        }
        _asked.notify_all();
        return script(request);
    }
}
