// mxl-fabrics-info: lists the interfaces libmxl-fabrics can use on this host, optionally filtered by provider and
// node, with their capabilities and provider attributes in verbose mode.
#include <client/FabricsBackend.hpp>
#include <client/FabricsInstance.hpp>
#include <client/FabricsInterfaces.hpp>
#include <client/InterfaceAttributes.hpp>
#include <client/PrivateDomain.hpp>

#include <mxl/fabrics_backends.h>

#include "CommandLine.hpp"
#include "ToolError.hpp"
#include "ToolMain.hpp"

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace
{
    namespace po = boost::program_options;
    using mxl::client::FabricsInterface;

    constexpr char const* usage = R"(Usage: mxl-fabrics-info [--backend NAME | --all-backends] [-p PROVIDER] [-n NODE] [-d DOMAIN] [-v]

Lists the fabrics interfaces libmxl-fabrics can use on this host through one fabrics backend
(transport; default $MXL_FABRICS_BACKEND, else ofi, libfabric), or through every backend installed
(--all-backends: each libmxl-fabrics-<name>.so of the search path, docs/fabrics-backends.md), after a
line naming the backend:
  backend <name> ABI <major>.<minor> <file it was loaded from>
  interface <provider>-<k> node <node> dev <device>
A backend that cannot be loaded prints "backend <name> <file>: not loaded" after the library's line
saying why.
With -v, a block per interface (provider, node, service, max message size, capabilities and the
provider's attributes) and a count per provider on stderr.

Exit status: 0 (also when nothing matches: "No matching interfaces found." on stderr), 2 for a bad
command line (an unknown option or provider, --backend with --all-backends), 1 on other errors (a
backend that cannot be found or loaded, domain or query failure; with --all-backends, any one of them).
)";

    struct InfoOptions
    {
        mxlFabricsProvider provider = MXL_FABRICS_PROVIDER_ANY;
        std::string node;
        std::string domain;
        std::string backend;
        bool allBackends = false;
        bool verbose = false;
    };

    std::optional<InfoOptions> parseOptions(int argc, char** argv)
    {
        po::options_description description{"Options"};
        description.add_options()                  //
            ("help,h", "print this help and exit") //
            ("backend", po::value<std::string>()->value_name("NAME"),
             "fabrics backend to load and list: libmxl-fabrics-NAME.so, ofi or ucx (docs/fabrics-backends.md; "
             "default: $MXL_FABRICS_BACKEND, else ofi)")                                                                              //
            ("all-backends", po::bool_switch(), "list every installed backend, each with its interfaces")                             //
            ("provider,p", po::value<std::string>()->default_value("any")->value_name("PROVIDER"), "any, tcp, verbs, efa or shm")     //
            ("node,n", po::value<std::string>()->value_name("NODE"), "only interfaces with this node (IP address, GID or host name)") //
            ("domain,d", po::value<std::string>()->value_name("DIR"), "MXL domain to use (default: a temporary one)")                 //
            ("verbose,v", po::bool_switch(), "capabilities, max message size and provider attributes of each interface");
        auto const values = mxl::tools::parseCommandLine(argc, argv, description);
        if (values.count("help") != 0)
        {
            std::ostringstream text;
            text << usage << '\n' << description;
            std::cout << text.str() << std::flush;
            return std::nullopt;
        }

        InfoOptions options;
        auto const& providerName = values["provider"].as<std::string>();
        auto const provider = mxl::client::parseProvider(providerName);
        if (!provider)
        {
            mxl::tools::badInput("unknown provider '{}' (expected any, tcp, verbs, efa or shm)", providerName);
        }
        options.provider = *provider;
        options.node = values.count("node") != 0 ? values["node"].as<std::string>() : std::string{};
        options.domain = values.count("domain") != 0 ? values["domain"].as<std::string>() : std::string{};
        options.verbose = values["verbose"].as<bool>();
        options.backend = values.count("backend") != 0 ? values["backend"].as<std::string>() : std::string{};
        options.allBackends = values["all-backends"].as<bool>();
        if (options.allBackends && !options.backend.empty())
        {
            mxl::tools::badInput("--backend and --all-backends exclude each other");
        }
        return options;
    }

    void printBrief(std::string const& name, FabricsInterface const& interface)
    {
        fmt::print("interface {} node {} dev {}\n", name, interface.node, mxl::client::interfaceDevice(interface));
    }

    void printBackend(mxlFabricsInstance fabrics)
    {
        mxlFabricsBackendInfo backend{};
        if (auto const status = ::mxlFabricsGetBackendInfo(fabrics, &backend); status != MXL_STATUS_OK)
        {
            throw std::runtime_error{
                fmt::format("cannot read the fabrics backend of the instance (mxlStatus {})", static_cast<int>(status))};
        }
        fmt::print("backend {} ABI {}.{} {}\n", backend.name, backend.abiVersion >> 16, backend.abiVersion & 0xffffu, backend.path);
    }

    int listInterfaces(InfoOptions const& options, std::string const& domain, std::string const& backend)
    {
        mxl::client::FabricsInstance instance{domain, backend};
        printBackend(instance.fabrics());
        auto const interfaces = mxl::client::listFabricsInterfaces(instance.fabrics(), options.provider, options.node);
        if (interfaces.empty())
        {
            fmt::print(stderr, "No matching interfaces found.\n");
            return 0;
        }

        std::map<std::string, int> perProvider;
        for (auto const& interface : interfaces)
        {
            auto const provider = mxl::client::providerName(interface.provider);
            auto const name = fmt::format("{}-{}", provider, perProvider[provider]++);
            if (options.verbose)
            {
                fmt::print("{}", mxl::client::interfaceDescription(name, interface));
            }
            else
            {
                printBrief(name, interface);
            }
        }
        if (options.verbose)
        {
            std::fflush(stdout);
            for (auto const& [provider, count] : perProvider)
            {
                fmt::print(stderr, "Found [{:3}] interfaces for [{:>5}] provider.\n", count, provider);
            }
        }
        return 0;
    }

    int listAllBackends(InfoOptions const& options, std::string const& domain)
    {
        auto const backends = mxl::client::installedBackends();
        if (backends.empty())
        {
            throw std::runtime_error{"no fabrics backend is installed (no libmxl-fabrics-<name>.so in the search path)"};
        }
        auto failed = false;
        for (auto const& backend : backends)
        {
            try
            {
                listInterfaces(options, domain, backend.name);
            }
            catch (std::exception const&)
            {
                std::fflush(stderr);
                fmt::print("backend {} {}: not loaded\n", backend.name, backend.path);
                failed = true;
            }
            std::fflush(stdout);
        }
        return failed ? 1 : 0;
    }

    int run(InfoOptions const& options)
    {
        // The fabrics library needs an mxl instance even to list interfaces, and a user who only asks what this host
        // can do should not have to name a domain.
        std::unique_ptr<mxl::client::PrivateDomain> scratch;
        if (options.domain.empty())
        {
            char const* base = std::getenv("TMPDIR");
            scratch = std::make_unique<mxl::client::PrivateDomain>(base != nullptr && *base != '\0' ? base : "/tmp",
                                                                   mxl::client::PrivateDomain::Options::Defaults);
        }
        auto const domain = scratch ? scratch->str() : options.domain;
        return options.allBackends ? listAllBackends(options, domain) : listInterfaces(options, domain, options.backend);
    }
}

int main(int argc, char** argv)
{
    return mxl::tools::runToolMain("mxl-fabrics-info",
                                   [&]
                                   {
                                       auto const options = parseOptions(argc, argv);
                                       return static_cast<mxl::tools::ExitCode>(options ? run(*options) : 0);
                                   });
}
