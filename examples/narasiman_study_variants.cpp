// narasiman_study's second translation unit: the machines narasiman_study.hpp lists (see there why they live here).
#include "narasiman_study.hpp"

namespace gpuarch::examples::narasiman {
GPUARCH_NARASIMAN_OTHER_UNIT_MACHINES()
} // namespace gpuarch::examples::narasiman
