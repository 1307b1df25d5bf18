# Builds tests/consumers/separate_compilation/ against the source tree and checks docs/consuming.md's "Separate
# compilation": the header-only and the separate builds of one program both run its kernel correctly and report the
# same instruction counts, and the separate build's main unit does not link without the definitions unit (so the
# interpreter really was compiled once, not in every unit).
file(REMOVE_RECURSE "${WORK_DIR}")
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${SOURCE_DIR}/tests/consumers/separate_compilation" -B "${WORK_DIR}"
                        -DGPUARCH_SOURCE_DIR=${SOURCE_DIR} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
                        -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -g0" RESULT_VARIABLE rc)
if(rc)
    message(FATAL_ERROR "configuring the separate-compilation consumer failed (${rc})")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${WORK_DIR}" --parallel 2 RESULT_VARIABLE rc)
if(rc)
    message(FATAL_ERROR "building the separate-compilation consumer failed (${rc})")
endif()
foreach(program header_only_consumer separate_consumer)
    execute_process(COMMAND "${WORK_DIR}/${program}" RESULT_VARIABLE rc OUTPUT_VARIABLE out_${program})
    message("${program}: ${out_${program}}")
    if(rc)
        message(FATAL_ERROR "${program} failed (${rc})")
    endif()
endforeach()
if(NOT out_header_only_consumer STREQUAL out_separate_consumer)
    message(FATAL_ERROR "the header-only and the separate builds report different results")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${WORK_DIR}" --target separate_consumer_without_definitions
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc)
    message(FATAL_ERROR "the separate build linked without its definitions unit: the interpreter was compiled in the "
                        "main unit too")
endif()
if(NOT "${out}${err}" MATCHES "undefined reference to [^\n]*gpuarch::func::KernelExecution")
    message(FATAL_ERROR "building without the definitions unit failed, but not for a missing KernelExecution "
                        "definition:\n${out}${err}")
endif()
