# `conan create` without a Conan client (none is installed on these machines).
#
# 1. Reads conanfile.py: its exports_sources patterns and the cache variables its generate() sets, so this test
#    follows the recipe instead of a copy of it.
# 2. Copies exactly the files those patterns select (Conan's fnmatch rules: `*` also matches `/`) into a scratch
#    source tree, as `conan export` does.
# 3. Configures that tree with the recipe's cache variables, builds it and installs it, as the recipe's build()
#    and package() do. The optional dependencies (doctest, nlohmann/json, Google Benchmark, Python) are made
#    unfindable, so a configure that still needs one of them fails here as it would on a machine without it.
# 4. Builds test_package/ against the install and runs it, as `conan create` does after packaging.
# 5. Runs docs/consuming.md's configure and install commands, as written, on the same exported tree.
#
# Inputs: SOURCE_DIR, WORK_DIR, CXX_COMPILER, GENERATOR.
cmake_minimum_required(VERSION 3.25)

function(run_step what)
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(rc)
        message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
    endif()
    message(STATUS "${what}: ok")
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
set(src "${WORK_DIR}/exported")

# ---- 1. the recipe
file(READ "${SOURCE_DIR}/conanfile.py" recipe)
string(REGEX MATCH "\n[ \t]*exports_sources[ \t]*=[ \t]*([^\n]*)" _ "${recipe}")
if(NOT CMAKE_MATCH_1)
    message(FATAL_ERROR "conanfile.py has no exports_sources line")
endif()
string(REGEX MATCHALL "\"[^\"]*\"" patterns "${CMAKE_MATCH_1}")
list(TRANSFORM patterns REPLACE "\"" "")
string(REGEX MATCHALL "cache_variables\\[\"[A-Za-z0-9_]+\"\\][ \t]*=[ \t]*\"[^\"]*\"" assignments "${recipe}")
set(cache_args "")
foreach(a IN LISTS assignments)
    string(REGEX MATCH "\\[\"([A-Za-z0-9_]+)\"\\][ \t]*=[ \t]*\"([^\"]*)\"" _ "${a}")
    list(APPEND cache_args "-D${CMAKE_MATCH_1}=${CMAKE_MATCH_2}")
endforeach()
message(STATUS "exports_sources: ${patterns}")
message(STATUS "cache variables: ${cache_args}")
foreach(option GPUARCH_BUILD_TESTS GPUARCH_BUILD_EXAMPLES GPUARCH_BUILD_BENCH GPUARCH_BUILD_TOOLS)
    if(NOT "-D${option}=OFF" IN_LIST cache_args)
        message(FATAL_ERROR "conanfile.py does not set ${option}=OFF; the package step would build it")
    endif()
endforeach()

# ---- 2. the exported files
set(exported "")
set(excluded "")
foreach(pattern IN LISTS patterns)
    set(exclude FALSE)
    if(pattern MATCHES "^!")
        set(exclude TRUE)
        string(SUBSTRING "${pattern}" 1 -1 pattern)
    endif()
    # fnmatch -> regex; the literal part before the first wildcard bounds the directory walked.
    string(REGEX REPLACE "([][.+^$(){}|\\\\])" "\\\\\\1" regex "${pattern}")
    string(REPLACE "*" ".*" regex "${regex}")
    string(REPLACE "?" "." regex "${regex}")
    string(REGEX MATCH "^[^*?]*" literal "${pattern}")
    string(REGEX MATCH "^.*/" root "${literal}")
    if(root STREQUAL "" AND NOT pattern MATCHES "[*?]")
        set(candidates "${pattern}")
    else()
        file(GLOB_RECURSE candidates RELATIVE "${SOURCE_DIR}" "${SOURCE_DIR}/${root}*")
    endif()
    foreach(file IN LISTS candidates)
        if(file MATCHES "^${regex}$" AND EXISTS "${SOURCE_DIR}/${file}" AND NOT IS_DIRECTORY "${SOURCE_DIR}/${file}")
            if(exclude)
                list(APPEND excluded "${file}")
            else()
                list(APPEND exported "${file}")
            endif()
        endif()
    endforeach()
endforeach()
list(REMOVE_ITEM exported ${excluded})
list(REMOVE_DUPLICATES exported)
list(LENGTH exported count)
if(count EQUAL 0)
    message(FATAL_ERROR "exports_sources selects no files")
endif()
foreach(file IN LISTS exported)
    get_filename_component(dir "${src}/${file}" DIRECTORY)
    file(COPY "${SOURCE_DIR}/${file}" DESTINATION "${dir}")
endforeach()
message(STATUS "exported ${count} files")

# A machine with only the library's dependencies: a configure that looks for one of these fails.
set(absent -DCMAKE_DISABLE_FIND_PACKAGE_doctest=ON -DCMAKE_DISABLE_FIND_PACKAGE_nlohmann_json=ON
           -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON -DCMAKE_DISABLE_FIND_PACKAGE_Python3=ON)

function(build_test_package prefix tag)
    run_step("configure test_package against the ${tag} install"
             "${CMAKE_COMMAND}" -S "${SOURCE_DIR}/test_package" -B "${WORK_DIR}/test_package_${tag}"
             -G "${GENERATOR}" "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
    run_step("build test_package (${tag})" "${CMAKE_COMMAND}" --build "${WORK_DIR}/test_package_${tag}")
    run_step("run test_package (${tag})" "${WORK_DIR}/test_package_${tag}/test_package")
endfunction()

# ---- 3. the recipe's build() and package()
set(build "${WORK_DIR}/build")
set(prefix "${WORK_DIR}/package")
run_step("configure the exported sources with the recipe's cache variables"
         "${CMAKE_COMMAND}" -S "${src}" -B "${build}" -G "${GENERATOR}" -DCMAKE_BUILD_TYPE=Release
         "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" ${cache_args} ${absent})
run_step("build" "${CMAKE_COMMAND}" --build "${build}")
run_step("install" "${CMAKE_COMMAND}" --install "${build}" --prefix "${prefix}")
if(NOT EXISTS "${prefix}/share/cmake/gpuarch/gpuarchConfig.cmake" OR NOT EXISTS "${prefix}/include/gpuarch/sm.hpp")
    message(FATAL_ERROR "the install lacks share/cmake/gpuarch/gpuarchConfig.cmake or include/gpuarch/sm.hpp")
endif()
# The library's install is headers and CMake files only: no example, tool or test target leaked into it.
file(GLOB_RECURSE installed RELATIVE "${prefix}" "${prefix}/*")
foreach(file IN LISTS installed)
    if(NOT file MATCHES "^(include/gpuarch/.*\\.hpp|share/cmake/gpuarch/[^/]+\\.cmake)$")
        message(FATAL_ERROR "the package installs ${file}, which is neither a public header nor a CMake file")
    endif()
endforeach()

# ---- 4. test_package
build_test_package("${prefix}" recipe)

# ---- 5. docs/consuming.md, as written: the ```sh block after "## CMake, installed package".
file(READ "${SOURCE_DIR}/docs/consuming.md" doc)
string(FIND "${doc}" "## CMake, installed package" at)
if(at EQUAL -1)
    message(FATAL_ERROR "docs/consuming.md has no '## CMake, installed package' section")
endif()
string(SUBSTRING "${doc}" ${at} -1 doc)
string(REGEX MATCH "```sh\n([^`]*)```" _ "${doc}")
string(REPLACE "\n" ";" lines "${CMAKE_MATCH_1}")
set(doc_prefix "${WORK_DIR}/doc_prefix")
set(commands 0)
foreach(line IN LISTS lines)
    if(NOT line MATCHES "^cmake ")
        continue()
    endif()
    string(REPLACE "/opt/gpuarch" "${doc_prefix}" line "${line}")
    separate_arguments(args UNIX_COMMAND "${line}")
    list(POP_FRONT args)
    if(args MATCHES "^-S")
        list(APPEND args -G "${GENERATOR}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" ${absent})
    endif()
    execute_process(COMMAND "${CMAKE_COMMAND}" ${args} WORKING_DIRECTORY "${src}"
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(rc)
        message(FATAL_ERROR "docs/consuming.md: `${line}` failed (${rc}):\n${out}\n${err}")
    endif()
    message(STATUS "docs/consuming.md: `${line}`: ok")
    math(EXPR commands "${commands} + 1")
endforeach()
if(commands LESS 2)
    message(FATAL_ERROR "docs/consuming.md's install section should show a configure and an install command")
endif()
build_test_package("${doc_prefix}" docs)
