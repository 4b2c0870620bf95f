// The few etcd v3 operations a ticket directory needs, through etcd's JSON gateway (POST /v3/kv/..., /v3/lease/...;
// keys and values travel base64-encoded, 64-bit numbers as decimal strings). Every call has a deadline, so an etcd that
// is down never holds a service's loop for longer than that.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mxl::directory
{
    // How the tools reach etcd: plain HTTP, or HTTPS (the server verified as lib/http's HttpsTrust says, which also holds
    // the client certificate presented where etcd asks for one); and a user and password where etcd's authentication is
    // enabled.
    struct EtcdAccess
    {
        bool tls = false;
        std::string user;
        std::string password;
    };

    // For every EtcdClient made from now on in this process.
    void setEtcdAccess(EtcdAccess access);

    struct KeyValue
    {
        std::string key;
        std::string value;
        // The lease the key lives with, 0 for none.
        std::int64_t lease = 0;
    };

    class EtcdClient
    {
    public:
        // `endpoint` is "host:port" of an etcd client URL, reached as setEtcdAccess says. Throws DirectoryError for a
        // malformed endpoint.
        EtcdClient(std::string const& endpoint, std::chrono::milliseconds timeout);

        [[nodiscard]] std::string const& endpoint() const noexcept
        {
            return _endpoint;
        }

        // The rest throw DirectoryError naming the endpoint, the operation and the key.
        void put(std::string const& key, std::string const& value, std::int64_t lease);
        [[nodiscard]] std::optional<KeyValue> get(std::string const& key);
        // Every key starting with `prefix`, in key order.
        [[nodiscard]] std::vector<KeyValue> list(std::string const& prefix);
        void remove(std::string const& key);

        // A lease of `ttl` (etcd rounds it up to its minimum, about 2 s); its id.
        [[nodiscard]] std::int64_t grantLease(std::chrono::seconds ttl);
        // False when etcd no longer knows the lease (it expired, or etcd lost its data): its keys are gone.
        [[nodiscard]] bool keepAlive(std::int64_t lease);
        void revokeLease(std::int64_t lease);

    private:
        std::string _endpoint;
        std::chrono::milliseconds _timeout;
        EtcdAccess _access;
        // etcd's token for _access.user, once authenticated.
        std::string _token;

        nlohmann::json post(char const* path, nlohmann::json const& body, std::string_view operation, std::string_view key);
        void authenticate();
    };
}
