// Validation of documents against AMWA's official IS-04/IS-05 schemas (../shared/spec/nmos, copied from the AMWA-TV
// repositories) with Debian's python3-jsonschema, run as a process (one a test process): the reference validator, not
// one of ours.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>

namespace mxl::test
{
    // Where the schemas are: ../shared/spec/nmos beside the source tree.
    std::filesystem::path nmosSchemaDirectory();

    // Why schemas cannot be checked here (no schema directory, no python3-jsonschema), or nullopt.
    std::optional<std::string> schemaCheckUnavailable();

    // The validator's complaint about `document` against `schema` (a file of the schema directory, e.g.
    // "is-04-v1.3/node.json"), or an empty string when it is valid.
    std::string schemaErrors(std::string const& schema, nlohmann::json const& document);

    // The same for an IS-05 document of an MXL sender or receiver. AMWA's IS-05 schemas predate BCP-007-03 and know no
    // MXL leg, so the legs' mxl_domain_id and mxl_flow_id are set aside for IS-05's schema and checked by BCP-007-03's
    // rules instead: null or a lowercase UUID, "auto" only where `autoAllowed` (staged, never active or a receiver's
    // mxl_flow_id), and both present in every leg of an answer (a PATCH body, "-stage-schema.json", may leave them out).
    // Where schemas cannot be checked (schemaCheckUnavailable()), only BCP-007-03's rules are.
    std::string mxlConnectionErrors(std::string const& schema, nlohmann::json const& document, bool autoAllowed);
}
