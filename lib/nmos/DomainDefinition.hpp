// <domain>/domain_def.json: the identity of an MXL domain, which BCP-007-03 ("NMOS With MXL") gives controllers as
// `mxl_domain_id`, and mxl-info prints. A domain whose file is absent gets one, with an id that is the same every time
// for the same host and directory, so that a restarted service (or a tmpfs emptied by a reboot) keeps the domain's id.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace mxl::nmos
{
    struct DomainDefinition
    {
        // A lowercase UUID of the form BCP-007-03 requires.
        std::string id;
        std::string label;
        std::string description;
        nlohmann::json tags = nlohmann::json::object();
        // Whether this call wrote the file.
        bool created = false;
    };

    // A domain_def.json that cannot be used: what() names the file, the field and the value.
    class DomainDefinitionError : public std::runtime_error
    {
    public:
        using std::runtime_error::runtime_error;
    };

    // Reads <domain>/domain_def.json, or creates it (id: the name-based UUID of `hostname` and the domain's canonical
    // path; label: the directory's name) when there is none. Two processes creating it at once write the same id, and
    // the file appears whole: it is written aside and linked into place, and whoever comes second reads the first's.
    // Throws DomainDefinitionError for a file that is not a usable definition, and for one that cannot be written.
    DomainDefinition readOrCreateDomainDefinition(std::filesystem::path const& domain, std::string const& hostname);

    // Whether `text` is a lowercase UUID as BCP-007-03 writes them (version 1-f, variant 8-b).
    bool isMxlUuid(std::string const& text);
}
