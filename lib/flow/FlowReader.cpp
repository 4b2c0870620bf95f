#include "FlowReader.hpp"

#include "common/FlowPaths.hpp"

#include <sys/stat.h>

namespace mxl
{
    FlowReader::FlowReader(Domain const& domain, std::string canonicalId, FlowFiles files)
        : _id{std::move(canonicalId)}
        , _dataPath{paths::dataFile(domain.flowDirectory(_id))}
        , _files{std::move(files)}
    {
        memory = _files.memory();
    }

    bool FlowReader::isFlowValid() const noexcept
    {
        struct stat status
        {
        };
        return ::stat(_dataPath.c_str(), &status) == 0 && status.st_ino == _files.data().state.inode;
    }

    mxlStatus FlowReader::checkValidity(mxlStatus status) const noexcept
    {
        auto const outOfRange = status == MXL_ERR_OUT_OF_RANGE_TOO_EARLY || status == MXL_ERR_OUT_OF_RANGE_TOO_LATE;
        return outOfRange && !isFlowValid() ? MXL_ERR_FLOW_INVALID : status;
    }
}
