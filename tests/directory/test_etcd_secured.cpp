// The etcd client against an etcd that requires TLS with client certificates and authentication: the ticket directory
// works for its user, and every other way in is refused with a message saying why.
#include <DirectoryError.hpp>
#include <EtcdClient.hpp>
#include <HttpsTrust.hpp>

#include "EtcdServer.hpp"
#include "Skip.hpp"
#include "TempDomain.hpp"
#include "TestCa.hpp"

#include <doctest/doctest.h>

#include <functional>

using namespace mxl::directory;
using namespace std::chrono_literals;

namespace
{
    // The process's trust, client certificate and etcd access, as they were before the test.
    struct ProcessAccessReset
    {
        ~ProcessAccessReset()
        {
            mxl::setHttpsClientCertificate(std::nullopt);
            mxl::setHttpsTrust({});
            setEtcdAccess({});
        }
    };

    std::string failureOf(std::function<void()> const& call)
    {
        try
        {
            call();
        }
        catch (DirectoryError const& error)
        {
            return error.what();
        }
        return "no failure";
    }
}

TEST_CASE("etcd with TLS, client certificates and authentication: its user reads and writes its prefix, nobody else gets in")
{
    MXL_SKIP_IF(mxl::test::EtcdServer::unavailable());
    mxl::test::TempDomain const pki{"etcd-pki"};
    // Before the files it names are removed.
    ProcessAccessReset const reset;
    mxl::test::TestCa const facility{pki.path(), "facility"};
    mxl::test::TestCa const stranger{pki.path(), "stranger"};
    auto const server = facility.issue("etcd", {"127.0.0.1"});
    auto const client = facility.issueWithoutCommonName("mxl-client", {"mxl-client"});
    mxl::setHttpsTrust(facility.caFile());
    mxl::setHttpsClientCertificate(mxl::TlsFiles{client.certificate, client.key});
    mxl::test::EtcdServer etcd{mxl::test::EtcdServer::Secured{server.certificate, server.key, facility.caFile()}};
    etcd.enableAuthentication("mxl", "ticket-writer", "/mxl/");

    setEtcdAccess({true, "mxl", "ticket-writer"});
    EtcdClient authorized{etcd.endpoint(), 10s};
    std::string const value{"{\"epoch\": 7}\0binary\xff", 20};
    authorized.put("/mxl/tickets/studio-a/flow", value, 0);
    auto const got = authorized.get("/mxl/tickets/studio-a/flow");
    REQUIRE(got);
    CHECK(got->value == value);
    auto const lease = authorized.grantLease(10s);
    CHECK(authorized.keepAlive(lease));
    authorized.put("/mxl/tickets/studio-a/leased", "x", lease);
    CHECK(authorized.list("/mxl/tickets/studio-a/").size() == 2);
    CHECK(failureOf([&] { authorized.put("/other/key", "x", 0); }).find("permission denied") != std::string::npos);

    // A client made under the access set last.
    auto const fresh = [&] { static_cast<void>(EtcdClient{etcd.endpoint(), 10s}.get("/mxl/tickets/studio-a/flow")); };
    setEtcdAccess({true, "mxl", "guessed"});
    CHECK(failureOf(fresh).find("authenticating as 'mxl' failed: HTTP") != std::string::npos);

    // No user: etcd takes the certificate's name, which is no user of its.
    setEtcdAccess({true, {}, {}});
    CHECK(failureOf(fresh).find("failed: HTTP") != std::string::npos);

    // Plain HTTP to its TLS port, no client certificate, a certificate of another authority.
    setEtcdAccess({false, "mxl", "ticket-writer"});
    CHECK(failureOf(fresh).find("authenticating as 'mxl' failed") != std::string::npos);
    setEtcdAccess({true, "mxl", "ticket-writer"});
    mxl::setHttpsClientCertificate(std::nullopt);
    CHECK(failureOf(fresh).find("authenticating as 'mxl' failed") != std::string::npos);
    auto const foreign = stranger.issueWithoutCommonName("foreign", {"foreign"});
    mxl::setHttpsClientCertificate(mxl::TlsFiles{foreign.certificate, foreign.key});
    CHECK(failureOf(fresh).find("authenticating as 'mxl' failed") != std::string::npos);

    // The authorized client still works: a refused token would be replaced, a good one is kept.
    mxl::setHttpsClientCertificate(mxl::TlsFiles{client.certificate, client.key});
    CHECK(authorized.get("/mxl/tickets/studio-a/flow")->value == value);
}
