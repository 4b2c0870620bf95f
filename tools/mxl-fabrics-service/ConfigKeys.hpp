// The keys of a service's configuration, with their help text: what --help prints and what a config file may set.
#pragma once

#include <boost/program_options/options_description.hpp>

namespace mxl::service::config
{
    // `ticket`, `path` and `ticket_file` are the keys that may repeat.
    [[nodiscard]] boost::program_options::options_description settingKeys();
}
