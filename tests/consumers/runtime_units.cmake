# GPUARCH_RUNTIME_UNITS (support/CMakeLists.txt; docs/cuda_runtime.md, "A runtime with fewer variants"): configures
# the source tree with it and checks what the registry will hold, without building anything.
#
# 1. This build (no restriction): its generated registry calls all 20 units (machine and group pairs, compiled in
#    eight translation units) and names no restriction.
# 2. Two units, with a space and a repeat in the list: the registry calls those two only, and names them for the
#    runtime's errors.
#    2b. Three units of one machine: the two whose groups are batched together share a translation unit.
# 3. A name that is no unit: configuring fails and lists the valid names.
# 4. A restriction with the test suite on: configuring fails and says to turn the tests off.
#
# Inputs: SOURCE_DIR, BUILD_DIR (this build), WORK_DIR, CXX_COMPILER.
cmake_minimum_required(VERSION 3.25)

function(count_calls header out_var)
    file(STRINGS "${header}" calls REGEX "^    add_[a-z0-9_]+\\(out\\);$")
    list(LENGTH calls n)
    set(${out_var} ${n} PARENT_SCOPE)
endfunction()

# Configures SOURCE_DIR into WORK_DIR/<name> with the given cache settings; sets <name>_rc and <name>_log.
function(configure name)
    file(REMOVE_RECURSE "${WORK_DIR}/${name}")
    execute_process(COMMAND "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${WORK_DIR}/${name}"
                            -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DGPUARCH_BUILD_EXAMPLES=OFF
                            -DGPUARCH_BUILD_BENCH=OFF ${ARGN}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    set(${name}_rc "${rc}" PARENT_SCOPE)
    set(${name}_log "${out}\n${err}" PARENT_SCOPE)
endfunction()

# ---- 1. the full registry of this build
set(header "${BUILD_DIR}/support/variant_units.hpp")
count_calls("${header}" n)
if(NOT n EQUAL 20)
    message(FATAL_ERROR "the unrestricted registry (${header}) calls ${n} units, not 20")
endif()
file(READ "${header}" text)
if(NOT text MATCHES "restricted_units = \"\";")
    message(FATAL_ERROR "the unrestricted registry names a restriction:\n${text}")
endif()
message(STATUS "unrestricted: 20 units, no restriction named")

# ---- 2. two units
configure(two -DGPUARCH_BUILD_TESTS=OFF "-DGPUARCH_RUNTIME_UNITS=gtx480_core, fermi_oaws,gtx480_core")
if(two_rc)
    message(FATAL_ERROR "configuring with two units failed:\n${two_log}")
endif()
set(header "${WORK_DIR}/two/support/variant_units.hpp")
count_calls("${header}" n)
file(READ "${header}" text)
if(NOT n EQUAL 2 OR NOT text MATCHES "add_gtx480_core\\(out\\);" OR NOT text MATCHES "add_fermi_oaws\\(out\\);")
    message(FATAL_ERROR "the registry restricted to gtx480_core and fermi_oaws calls ${n} units:\n${text}")
endif()
if(NOT text MATCHES "restricted_units = \"gtx480_core, fermi_oaws\";")
    message(FATAL_ERROR "the restricted registry does not name its units for the runtime's errors:\n${text}")
endif()
message(STATUS "two units: ok")

# ---- 2b. units of one machine share a translation unit when their groups are batched together (core and hints),
#          not otherwise (core and oaws)
configure(batched -DGPUARCH_BUILD_TESTS=OFF "-DGPUARCH_RUNTIME_UNITS=gtx480_hints,gtx480_core,gtx480_oaws")
if(batched_rc)
    message(FATAL_ERROR "configuring with three gtx480 units failed:\n${batched_log}")
endif()
file(GLOB sources RELATIVE "${WORK_DIR}/batched/support" "${WORK_DIR}/batched/support/variants_*.cpp")
list(SORT sources)
if(NOT sources STREQUAL "variants_gtx480_core_hints.cpp;variants_gtx480_oaws.cpp")
    message(FATAL_ERROR "gtx480_core, gtx480_hints and gtx480_oaws generated ${sources}, not "
                        "variants_gtx480_core_hints.cpp and variants_gtx480_oaws.cpp")
endif()
file(READ "${WORK_DIR}/batched/support/variants_gtx480_core_hints.cpp" text)
if(NOT text MATCHES "void add_gtx480_core\\(" OR NOT text MATCHES "void add_gtx480_hints\\("
   OR text MATCHES "add_gtx480_oaws")
    message(FATAL_ERROR "variants_gtx480_core_hints.cpp does not define exactly the core and hints units:\n${text}")
endif()
message(STATUS "batched units: ok")

# ---- 3. a misspelt unit
configure(misspelt -DGPUARCH_BUILD_TESTS=OFF -DGPUARCH_RUNTIME_UNITS=gtx480_cores)
if(NOT misspelt_rc OR NOT misspelt_log MATCHES "names 'gtx480_cores', which is not a registry unit"
   OR NOT misspelt_log MATCHES "southern_islands_hints")
    message(FATAL_ERROR "a misspelt unit must fail the configure step and list the units (rc ${misspelt_rc}):\n"
                        "${misspelt_log}")
endif()
message(STATUS "misspelt unit: refused")

# ---- 4. a restriction with the test suite
configure(with_tests -DGPUARCH_BUILD_TESTS=ON -DGPUARCH_RUNTIME_UNITS=gtx480_core)
if(NOT with_tests_rc OR NOT with_tests_log MATCHES "-DGPUARCH_BUILD_TESTS=OFF")
    message(FATAL_ERROR "a restriction with the tests on must fail the configure step and say to turn them off (rc "
                        "${with_tests_rc}):\n${with_tests_log}")
endif()
message(STATUS "restriction with the tests on: refused")
file(REMOVE_RECURSE "${WORK_DIR}")
