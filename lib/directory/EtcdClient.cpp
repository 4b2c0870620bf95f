#include "EtcdClient.hpp"

#include "DirectoryError.hpp"
#include "common/Base64.hpp"
#include "common/BoundedJson.hpp"

#include <HttpClient.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <charconv>

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

    EtcdClient::EtcdClient(std::string const& endpoint, std::chrono::milliseconds timeout)
        : _endpoint{endpoint}
        , _timeout{timeout}
    {
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

        nlohmann::json post(std::string const& endpoint, std::chrono::milliseconds timeout, char const* path, nlohmann::json const& body,
                            std::string_view operation, std::string_view key)
        {
            auto const exchanged = httpExchange("POST", fmt::format("http://{}{}", endpoint, path), body.dump(), timeout, maxAnswerBytes);
            if (auto const* failure = std::get_if<HttpFailure>(&exchanged))
            {
                throw DirectoryError{fmt::format("etcd {}: {} '{}' failed: {}", endpoint, operation, key, failure->reason)};
            }
            auto const* result = &std::get<HttpAnswer>(exchanged);
            constexpr mxl::JsonLimits answerLimits{maxAnswerBytes, 64};
            auto answer = mxl::parseJsonOrDiscarded(result->body, answerLimits);
            if (result->status != 200)
            {
                auto const message = answer.is_object() && answer.contains("message") && answer["message"].is_string()
                                         ? answer["message"].get<std::string>()
                                         : result->body.substr(0, 200);
                throw DirectoryError{
                    fmt::format("etcd {}: {} '{}' failed: HTTP {}: {}", endpoint, operation, key, result->status, message)};
            }
            if (!answer.is_object())
            {
                throw DirectoryError{fmt::format("etcd {}: {} '{}' failed: the answer is not a JSON object (is this etcd's client port?)",
                                                 endpoint, operation, key)};
            }
            return answer;
        }
    }

    void EtcdClient::put(std::string const& key, std::string const& value, std::int64_t lease)
    {
        nlohmann::json body{{"key", encodeBase64(key)}, {"value", encodeBase64(value)}};
        if (lease != 0)
        {
            body["lease"] = std::to_string(lease);
        }
        post(_endpoint, _timeout, "/v3/kv/put", body, "put", key);
    }

    std::optional<KeyValue> EtcdClient::get(std::string const& key)
    {
        auto const answer = post(_endpoint, _timeout, "/v3/kv/range", {{"key", encodeBase64(key)}}, "get", key);
        auto const kvs = answer.find("kvs");
        if (kvs == answer.end() || !kvs->is_array() || kvs->empty())
        {
            return std::nullopt;
        }
        return keyValueOf(kvs->front());
    }

    std::vector<KeyValue> EtcdClient::list(std::string const& prefix)
    {
        auto const answer = post(_endpoint, _timeout, "/v3/kv/range",
                                 {{"key", encodeBase64(prefix)}, {"range_end", encodeBase64(prefixEnd(prefix))}}, "list", prefix);
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
        post(_endpoint, _timeout, "/v3/kv/deleterange", {{"key", encodeBase64(key)}}, "delete", key);
    }

    std::int64_t EtcdClient::grantLease(std::chrono::seconds ttl)
    {
        auto const answer = post(_endpoint, _timeout, "/v3/lease/grant", {{"TTL", std::to_string(ttl.count())}}, "grant a lease for",
                                 fmt::format("{} s", ttl.count()));
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
        auto const answer = post(_endpoint, _timeout, "/v3/lease/keepalive", {{"ID", id}}, "keep alive lease", id);
        // The keep-alive stream's one message; an unknown lease answers with a TTL of 0 (left out of the JSON).
        auto const result = answer.find("result");
        return result != answer.end() && result->is_object() && int64Field(*result, "TTL") > 0;
    }

    void EtcdClient::revokeLease(std::int64_t lease)
    {
        auto const id = std::to_string(lease);
        post(_endpoint, _timeout, "/v3/lease/revoke", {{"ID", id}}, "revoke lease", id);
    }
}
