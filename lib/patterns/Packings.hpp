// The pixel packings the patterns are written in (lib/media's v210 and v210a), by their names in the patterns too.
#pragma once

#include "media/V210Packing.hpp"

namespace mxl::patterns
{
    // The packings the patterns are written in, by their names here too.
    using media::keyLineBytes;
    using media::packKeyLine;
    using media::packV210Line;
    using media::unpackKeySample;
    using media::unpackV210Pixel;
    using media::v210LineBytes;
    using media::YCbCr10;
}
