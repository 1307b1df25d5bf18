// carf_study's second translation unit: the variants carf_study.hpp lists (see there why they live here).
#include "carf_study.hpp"

namespace gpuarch::examples::carf {
GPUARCH_CARF_OTHER_UNIT_VARIANTS()
} // namespace gpuarch::examples::carf
