#include "EtcdClient.hpp"

#include "DirectoryError.hpp"
#include "common/Base64.hpp"
#include "common/BoundedJson.hpp"
#include "common/PrintableText.hpp"

#include <HttpClient.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <charconv>
#include <mutex>
#include <variant>

namespace mxl::directory
{
    namespace
    {
        // The gateway writes int64 fields as decimal strings (proto3 JSON mapping); accept plain numbers too.
        std::int64_t int64Field(nlohmann::json const& object, char const* name)
        {
            auto const it = object.find(name);
            if (it == object.end())
            {
                return 0;
            }
            if (it->is_number_integer())
            {
                return it->get<std::int64_t>();
            }
            std::int64_t value = 0;
            if (it->is_string())
            {
                auto const& text = it->get_ref<std::string const&>();
                std::from_chars(text.data(), text.data() + text.size(), value);
            }
            return value;
        }

        std::string decodedField(nlohmann::json const& object, char const* name)
        {
            auto const it = object.find(name);
            if (it == object.end() || !it->is_string())
            {
                return {};
            }
            return decodeBase64(it->get<std::string>()).value_or(std::string{});
        }

        // The first key after every key that starts with `prefix` (etcd's range_end for a prefix).
        std::string prefixEnd(std::string prefix)
        {
            while (!prefix.empty())
            {
                auto& last = prefix.back();
                if (static_cast<unsigned char>(last) != 0xff)
                {
                    ++last;
                    return prefix;
                }
                prefix.pop_back();
            }
            // Every key: etcd reads "\0" as "no end".
            return std::string(1, '\0');
        }

        KeyValue keyValueOf(nlohmann::json const& kv)
        {
            return KeyValue{decodedField(kv, "key"), decodedField(kv, "value"), int64Field(kv, "lease")};
        }
    }

    namespace
    {
        std::mutex accessMutex;
        EtcdAccess processAccess;
    }

    void setEtcdAccess(EtcdAccess access)
    {
        std::lock_guard const lock{accessMutex};
        processAccess = std::move(access);
    }

    EtcdClient::EtcdClient(std::string const& endpoint, std::chrono::milliseconds timeout)
        : _endpoint{endpoint}
        , _timeout{timeout}
    {
        {
            std::lock_guard const lock{accessMutex};
            _access = processAccess;
        }
        auto const colon = endpoint.rfind(':');
        if (endpoint.empty() || colon == std::string::npos || colon == 0 || colon + 1 == endpoint.size() ||
            endpoint.find('/') != std::string::npos)
        {
            throw DirectoryError{fmt::format("etcd endpoint '{}' is not host:port", endpoint)};
        }
    }

    namespace
    {
        // A listing of a large directory is larger than the documents a peer sends elsewhere.
        constexpr std::size_t maxAnswerBytes = 64 * 1024 * 1024;

        struct Failed
        {
            int status = 0;
            std::string message;
        };

        // The answer of a POST to the gateway, or its status and message.
        std::variant<nlohmann::json, Failed> exchange(std::string const& url, std::string const& token, nlohmann::json const& body,
                                                      std::chrono::milliseconds timeout, std::string& failure)
        {
            auto const exchanged = httpExchangeAuthorized("POST", url, body.dump(), token, timeout, maxAnswerBytes);
            if (auto const* problem = std::get_if<HttpFailure>(&exchanged))
            {
                failure = problem->reason;
                return Failed{};
            }
            auto const& result = std::get<HttpAnswer>(exchanged);
            constexpr mxl::JsonLimits answerLimits{maxAnswerBytes, 64};
            auto answer = mxl::parseJsonOrDiscarded(result.body, answerLimits);
            if (result.status != 200)
            {
                return Failed{result.status, printableText(answer.is_object() && answer.contains("message") && answer["message"].is_string()
                                                               ? answer["message"].get<std::string>()
                                                               : result.body,
                                                           quotedAnswerChars)};
            }
            if (!answer.is_object())
            {
                failure = "the answer is not a JSON object (is this etcd's client port?)";
                return Failed{};
            }
            return answer;
        }

        bool tokenRefused(Failed const& failed)
        {
            return failed.status == 401 || failed.message.find("invalid auth token") != std::string::npos;
        }
    }

    void EtcdClient::authenticate()
    {
        std::string failure;
        auto const answer = exchange(fmt::format("{}://{}/v3/auth/authenticate", _access.tls ? "https" : "http", _endpoint), {},
                                     {{"name", _access.user}, {"password", _access.password}}, _timeout, failure);
        if (auto const* failed = std::get_if<Failed>(&answer))
        {
            throw DirectoryError{fmt::format("etcd {}: authenticating as '{}' failed: {}", _endpoint, _access.user,
                                             failure.empty() ? fmt::format("HTTP {}: {}", failed->status, failed->message) : failure)};
        }
        auto const token = std::get<nlohmann::json>(answer).value("token", nlohmann::json{});
        if (!token.is_string() || token.get<std::string>().empty())
        {
            throw DirectoryError{
                fmt::format("etcd {}: authenticating as '{}' gave no token (is authentication enabled?)", _endpoint, _access.user)};
        }
        _token = token.get<std::string>();
    }

    nlohmann::json EtcdClient::post(char const* path, nlohmann::json const& body, std::string_view operation, std::string_view key)
    {
        auto const url = fmt::format("{}://{}{}", _access.tls ? "https" : "http", _endpoint, path);
        // An etcd token lives a few minutes (--auth-token-ttl): a refused one is replaced once.
        for (int attempt = 0;; ++attempt)
        {
            if (!_access.user.empty() && _token.empty())
            {
                authenticate();
            }
            std::string failure;
            auto answer = exchange(url, _token, body, _timeout, failure);
            if (auto* document = std::get_if<nlohmann::json>(&answer))
            {
                return std::move(*document);
            }
            auto const& failed = std::get<Failed>(answer);
            if (!failure.empty())
            {
                throw DirectoryError{fmt::format("etcd {}: {} '{}' failed: {}", _endpoint, operation, key, failure)};
            }
            if (attempt == 0 && !_access.user.empty() && tokenRefused(failed))
            {
                _token.clear();
                continue;
            }
            throw DirectoryError{
                fmt::format("etcd {}: {} '{}' failed: HTTP {}: {}", _endpoint, operation, key, failed.status, failed.message)};
        }
    }

    void EtcdClient::put(std::string const& key, std::string const& value, std::int64_t lease)
    {
        nlohmann::json body{{"key", encodeBase64(key)}, {"value", encodeBase64(value)}};
        if (lease != 0)
        {
            body["lease"] = std::to_string(lease);
        }
        post("/v3/kv/put", body, "put", key);
    }

    std::optional<KeyValue> EtcdClient::get(std::string const& key)
    {
        auto const answer = post("/v3/kv/range", {{"key", encodeBase64(key)}}, "get", key);
        auto const kvs = answer.find("kvs");
        if (kvs == answer.end() || !kvs->is_array() || kvs->empty())
        {
            return std::nullopt;
        }
        return keyValueOf(kvs->front());
    }

    std::vector<KeyValue> EtcdClient::list(std::string const& prefix)
    {
        auto const answer =
            post("/v3/kv/range", {{"key", encodeBase64(prefix)}, {"range_end", encodeBase64(prefixEnd(prefix))}}, "list", prefix);
        std::vector<KeyValue> found;
        if (auto const kvs = answer.find("kvs"); kvs != answer.end() && kvs->is_array())
        {
            for (auto const& kv : *kvs)
            {
                found.push_back(keyValueOf(kv));
            }
        }
        return found;
    }

    void EtcdClient::remove(std::string const& key)
    {
        post("/v3/kv/deleterange", {{"key", encodeBase64(key)}}, "delete", key);
    }

    std::int64_t EtcdClient::grantLease(std::chrono::seconds ttl)
    {
        auto const answer =
            post("/v3/lease/grant", {{"TTL", std::to_string(ttl.count())}}, "grant a lease for", fmt::format("{} s", ttl.count()));
        auto const id = int64Field(answer, "ID");
        if (id == 0)
        {
            throw DirectoryError{fmt::format("etcd {}: granting a lease failed: {}", _endpoint,
                                             answer.contains("error") ? answer["error"].dump() : std::string{"no lease id in the answer"})};
        }
        return id;
    }

    bool EtcdClient::keepAlive(std::int64_t lease)
    {
        auto const id = std::to_string(lease);
        auto const answer = post("/v3/lease/keepalive", {{"ID", id}}, "keep alive lease", id);
        // The keep-alive stream's one message; an unknown lease answers with a TTL of 0 (left out of the JSON).
        auto const result = answer.find("result");
        return result != answer.end() && result->is_object() && int64Field(*result, "TTL") > 0;
    }

    void EtcdClient::revokeLease(std::int64_t lease)
    {
        auto const id = std::to_string(lease);
        post("/v3/lease/revoke", {{"ID", id}}, "revoke lease", id);
    }
}
