# CUDA programs written here, compiled with nvcc inside the build and run unmodified through gpuarch-run on every
# machine (docs/cuda_runtime.md). Included from tests/cudart/tests.cmake.
find_program(GPUARCH_NVCC nvcc HINTS "${CUDAToolkit_BIN_DIR}")
if(NOT GPUARCH_NVCC)
    # CTest reports these as skipped, with the reason in their output.
    add_test(NAME cudart.programs COMMAND sh -c "echo 'skipped: nvcc not found; the CUDA program tests need it'; exit 77")
    set_tests_properties(cudart.programs PROPERTIES SKIP_RETURN_CODE 77)
    return()
endif()

set(programs_dir "${cudart_tests_dir}/programs")
set(programs_out "${CMAKE_CURRENT_BINARY_DIR}/cudart_programs")
file(MAKE_DIRECTORY "${programs_out}")
# Pinned flags: sm_75 cubin (registers come from it) plus compute_75 PTX (what gpuarch simulates).
set(nvcc_flags -O2 -std=c++17 -arch=sm_75 -cudart shared)
set(program_outputs "")
function(gpuarch_cuda_program name)
    cmake_parse_arguments(P "" "" "SOURCES;FLAGS" ${ARGN})
    set(sources "")
    foreach(s IN LISTS P_SOURCES)
        list(APPEND sources "${programs_dir}/${s}")
    endforeach()
    add_custom_command(OUTPUT "${programs_out}/${name}"
        COMMAND "${GPUARCH_NVCC}" ${P_FLAGS} -o "${programs_out}/${name}" ${sources}
        DEPENDS ${sources} "${programs_dir}/check.cuh"
        COMMENT "nvcc: tests/cudart/programs/${name}"
        VERBATIM)
    list(APPEND program_outputs "${programs_out}/${name}")
    set(program_outputs "${program_outputs}" PARENT_SCOPE)
endfunction()
gpuarch_cuda_program(vector_ops SOURCES vector_ops.cu FLAGS ${nvcc_flags})
gpuarch_cuda_program(two_files SOURCES two_files/main.cu two_files/gemm.cu FLAGS ${nvcc_flags})
gpuarch_cuda_program(faults SOURCES faults.cu FLAGS ${nvcc_flags})
gpuarch_cuda_program(device_printf SOURCES device_printf.cu FLAGS ${nvcc_flags})
gpuarch_cuda_program(cooperative SOURCES cooperative.cu FLAGS ${nvcc_flags})
gpuarch_cuda_program(textures SOURCES textures.cu FLAGS ${nvcc_flags})
gpuarch_cuda_program(device_malloc SOURCES device_malloc.cu FLAGS ${nvcc_flags})
gpuarch_cuda_program(gpgpusim_stats SOURCES gpgpusim_stats.cu FLAGS ${nvcc_flags})
gpuarch_cuda_program(sampling SOURCES sampling.cu FLAGS ${nvcc_flags})
# PTX only, no cubin: registers come from ptxas on the extracted PTX.
gpuarch_cuda_program(vector_ops_ptx_only SOURCES vector_ops.cu
                     FLAGS -O2 -std=c++17 -gencode arch=compute_75,code=compute_75 -cudart shared)
# Uncompressed fat binary.
gpuarch_cuda_program(vector_ops_uncompressed SOURCES vector_ops.cu FLAGS ${nvcc_flags} -no-compress)
# nvcc's default: the runtime linked statically, which gpuarch-run must refuse with advice.
gpuarch_cuda_program(vector_ops_static SOURCES vector_ops.cu FLAGS -O2 -std=c++17 -arch=sm_75)
add_custom_target(gpuarch_cuda_programs ALL DEPENDS ${program_outputs})
add_dependencies(gpuarch_cuda_programs gpuarch-run)

set(run "$<TARGET_FILE:gpuarch-run>")
set(expect "${cudart_tests_dir}/expect.sh")
# Each test gets its own cache of extracted PTX and ptxas reports, so tests do not depend on each other.
function(gpuarch_program_test name)
    add_test(NAME cudart.${name} COMMAND ${ARGN})
    set_tests_properties(cudart.${name} PROPERTIES
        ENVIRONMENT "GPUARCH_CACHE_DIR=${programs_out}/cache/${name}")
endfunction()

foreach(machine fermi kepler southern_islands)
    gpuarch_program_test(vector_ops.${machine} "${expect}" 0 - "\\[gpuarch\\] kernel void scale_add<float>.*registers \\(cubin sm_75\\)"
        -- "${run}" --machine ${machine} -- "${programs_out}/vector_ops")
    gpuarch_program_test(two_files.${machine} "${expect}" 0 - "\\[gpuarch\\] total: 2 launches"
        -- "${run}" --machine ${machine} -- "${programs_out}/two_files")
    gpuarch_program_test(device_printf.${machine} "${expect}" 0 "${programs_dir}/device_printf.expected" -
        -- "${run}" --machine ${machine} --quiet -- "${programs_out}/device_printf")
    gpuarch_program_test(cooperative.${machine} "${expect}" 0 - "cooperative: [0-9]+ CTAs \\([0-9]+ per SM\\), sum -?[0-9]+"
        -- "${run}" --machine ${machine} -- "${programs_out}/cooperative")
    # Texture and surface objects over arrays, linear and pitched memory (stdout "textures: ok" after every check);
    # fetches through a destroyed or never-created object: cudaErrorIllegalAddress and the object in the message.
    gpuarch_program_test(textures.${machine} "${expect}" 0 - "\\[gpuarch\\] total: 8 launches"
        -- "${run}" --machine ${machine} -- "${programs_out}/textures")
    gpuarch_program_test(fault.texture_destroyed.${machine} "${expect}" 0 -
        "kernel '_Z8sample2d.*tex through texture object 0x[0-9a-f]+ was destroyed"
        -- "${run}" --machine ${machine} -- "${programs_out}/textures" destroyed)
    gpuarch_program_test(fault.texture_unbound.${machine} "${expect}" 0 -
        "kernel '_Z8sample2d.*tex through texture object 0x[0-9a-f]+ was never created \\(unbound\\)"
        -- "${run}" --machine ${machine} -- "${programs_out}/textures" unbound)
    gpuarch_program_test(device_malloc.${machine} "${expect}" 0 "${programs_dir}/device_malloc.expected" -
        -- "${run}" --machine ${machine} --quiet -- "${programs_out}/device_malloc")
    gpuarch_program_test(fault.oob.${machine} "${expect}" 0 -
        "out-of-bounds global store of 4 bytes.*(runs past the end|no live allocation)"
        -- "${run}" --machine ${machine} -- "${programs_out}/faults" oob)
    gpuarch_program_test(fault.assert.${machine} "${expect}" 0 - "Assertion .values\\[threadIdx.x\\] < 5. failed"
        -- "${run}" --machine ${machine} -- "${programs_out}/faults" assert)
    gpuarch_program_test(fault.trap.${machine} "${expect}" 0 - "kernel '_Z8trappingPi'.*trap"
        -- "${run}" --machine ${machine} -- "${programs_out}/faults" trap)
    gpuarch_program_test(fault.runaway.${machine} "${expect}" 0 -
        "kernel '_Z7foreverPViPi' at PC [0-9]+ \\(.*module-[0-9a-f]+\\.ptx:[0-9]+\\), CTA \\([01],0,0\\), thread .*limit of 200000 cycles"
        -- "${run}" --machine ${machine} --set max_cycles=200000 --set livelock_cycles=0 -- "${programs_out}/faults" runaway)
    gpuarch_program_test(fault.livelock.${machine} "${expect}" 0 - "livelock: warps kept issuing for 100000 cycles"
        -- "${run}" --machine ${machine} --set livelock_cycles=100000 -- "${programs_out}/faults" livelock)
endforeach()
gpuarch_program_test(fault.config "${expect}" 0 - "cannot launch kernel '_Z7nothingPi': block \\(2048,1,1\\) exceeds the maximum"
    -- "${run}" -- "${programs_out}/faults" config)
gpuarch_program_test(unsupported_api "${expect}" 1 -
    "gpuarch: cudaMallocManaged is not supported by gpuarch's CUDA runtime \\(https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__MEMORY.html\\)"
    -- "${run}" -- "${programs_out}/faults" unsupported)
gpuarch_program_test(static_binary "${expect}" 1 - "links the CUDA runtime statically.*nvcc -cudart shared"
    -- "${run}" -- "${programs_out}/vector_ops_static")
gpuarch_program_test(ptx_only "${expect}" 0 - "registers \\(ptxas sm_75"
    -- "${run}" --machine kepler -- "${programs_out}/vector_ops_ptx_only" 1000)
gpuarch_program_test(uncompressed "${expect}" 0 - "PASSED|total: 2 launches"
    -- "${run}" --machine fermi -- "${programs_out}/vector_ops_uncompressed" 1000)
gpuarch_program_test(functional "${expect}" 0 - "functional: [0-9]+ warp / [0-9]+ thread instructions"
    -- "${run}" --functional -- "${programs_out}/vector_ops")
gpuarch_program_test(unknown_machine "${expect}" 2 - "no machine named 'ampere'. valid machines: fermi, gtx480, kepler, southern_islands"
    -- "${run}" --machine ampere -- "${programs_out}/vector_ops")
gpuarch_program_test(unknown_setting "${expect}" 2 - "unknown setting 'l1.msh'. valid settings: machine, "
    -- "${run}" --set l1.msh=4 -- "${programs_out}/vector_ops")
gpuarch_program_test(config_file "${expect}" 0 - "total: 2 launches.*\\[l1.mshr_entries=4, dram.latency=200\\]"
    -- "${run}" --config "${cudart_tests_dir}/example.config" -- "${programs_out}/vector_ops" 1000)
gpuarch_program_test(all_variants "${cudart_tests_dir}/run_all_variants.sh" "${run}"
    "${programs_out}/vector_ops" 600)
gpuarch_program_test(stats_json "${Python3_EXECUTABLE}" "${cudart_tests_dir}/check_stats.py" "${run}"
    "${programs_out}/two_files" "${programs_out}/stats.json")

# Interval statistics (docs/timeline.md): the run directory's intervals sum exactly to totals.json.
gpuarch_program_test(timeline python3 "${cudart_tests_dir}/check_timeline.py" "${run}"
    "${programs_out}/two_files" "${programs_out}/timeline_work")

# gpuarch-report on that program's real runs under two schedulers (tests/report; the browser part needs Chromium).
gpuarch_program_test(timeline_report sh "${PROJECT_SOURCE_DIR}/tests/report/check_real_runs.sh" "${run}"
    "${programs_out}/two_files" "${PROJECT_BINARY_DIR}/tools/report/gpuarch-report"
    "${programs_out}/timeline_report_work")
set_tests_properties(cudart.timeline_report PROPERTIES LABELS report SKIP_RETURN_CODE 77 RESOURCE_LOCK gpuarch_chromium)

# GPGPU-Sim-named statistics (--stats-format gpgpusim) against hand counts, with and without the L1 flush.
gpuarch_program_test(gpgpusim_stats python3 "${cudart_tests_dir}/check_gpgpusim_stats.py" "${run}"
    "${programs_out}/gpgpusim_stats" "${programs_out}/gpgpusim_stats_work")

# Sampled timing and fast-forward (docs/sampling.md) against the full run of the same program.
gpuarch_program_test(sampling python3 "${cudart_tests_dir}/check_sampling.py" "${run}"
    "${programs_out}/sampling" "${programs_out}/sampling_work")

# Everything after `--` belongs to the program, even right after a repeatable option (--set): the program still
# gets its own argument (`destroyed`) and fails as it should.
gpuarch_program_test(set_then_program_arguments "${expect}" 0 -
    "kernel '_Z8sample2d.*tex through texture object 0x[0-9a-f]+ was destroyed"
    -- "${run}" --machine fermi --set quiet=false -- "${programs_out}/textures" destroyed)
